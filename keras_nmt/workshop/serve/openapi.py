"""`GET /spec`: the OpenAPI 3.1 document of the server's routes.

Written out here rather than collected from docstrings: each route's fields, answers and
errors in one place a client generator can read. `tests/serve` checks that every route the
application answers is in it, and nothing else.

Example:
    >>> sorted(openapi_document("0.1")["paths"])[:3]
    ['/api/explore', '/api/models', '/api/translate']
"""

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_TEXTS = {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
_DETECTED = {"type": "object", "properties": {
    "confidence": {"type": "number", "description": "0-100"},
    "language": {"type": "string"}}}


def _errors(*codes):
    words = {400: "a bad request", 403: "a wrong or missing API key", 404: "nothing there",
             405: "a method the route does not answer", 413: "a request over the limits",
             415: "a body that is neither JSON nor a form",
             429: "the server is busy (its queue is full)",
             503: "the translation took longer than the server's timeout"}
    return {str(code): {"description": words[code], "content": {
        "application/json": {"schema": _ERROR}}} for code in codes}


def _json_ok(description, schema):
    return {"200": {"description": description,
                    "content": {"application/json": {"schema": schema}}}}


def _body(properties, required, form=True):
    schema = {"type": "object", "properties": properties, "required": required}
    kinds = {"application/json": {"schema": schema}}
    if form:
        kinds["application/x-www-form-urlencoded"] = {"schema": schema}
        kinds["multipart/form-data"] = {"schema": schema}
    return {"required": True, "content": kinds}


def _post(summary, properties, required, answer, *codes, form=True):
    return {"post": {"summary": summary, "requestBody": _body(properties, required, form),
                     "responses": {**answer, **_errors(*codes)}}}


def _get(summary, answer, *codes):
    return {"get": {"summary": summary, "responses": {**answer, **_errors(*codes)}}}


def openapi_document(version):
    """The OpenAPI document (a dict) of every route; `version` is the package's."""
    key = {"type": "string", "description": "the server's API key, when it requires one"}
    translate = {
        "q": {**_TEXTS, "description": "a text, or a list of them"},
        "source": {"type": "string", "description": "a served language code, or auto"},
        "target": {"type": "string"},
        "format": {"type": "string", "enum": ["text", "html"], "default": "text"},
        "alternatives": {"type": "integer", "minimum": 0, "default": 0,
                         "description": "that many more translations of each text"},
        "glossary": {"type": "object", "additionalProperties": {"type": "string"},
                     "description": "source term -> target term the translation must use "
                     "(the term itself: do not translate it)"},
        "confidence": {"type": "boolean", "default": False,
                       "description": "answer each text's mean token log-probability"},
        "alignment": {"type": "boolean", "default": False,
                      "description": "answer each text's word alignment, from the model's "
                      "attention"},
        "api_key": key,
    }
    translated = {"type": "object", "properties": {
        "translatedText": _TEXTS,
        "alternatives": {"type": "array"},
        "detectedLanguage": {"oneOf": [_DETECTED, {"type": "array", "items": _DETECTED}]},
        "confidence": {"oneOf": [{"type": "number"}, {"type": "array"}]},
        "alignment": {"type": "array"}}, "required": ["translatedText"]}
    language = {"type": "object", "properties": {
        "code": {"type": "string"}, "name": {"type": "string"},
        "targets": {"type": "array", "items": {"type": "string"}}}}
    rich = {"model": {"type": "string"}, "q": _TEXTS,
            "strategy": {"type": "string", "enum": ["greedy", "beam", "sample"]},
            "beam_size": {"type": "integer"}, "n_best": {"type": "integer"},
            "length_penalty": {"type": "number"}, "temperature": {"type": "number"},
            "top_k": {"type": "integer"}, "top_p": {"type": "number"},
            "seed": {"type": "integer"}, "confidence": {"type": "boolean"},
            "alignment": {"type": "boolean"}, "api_key": key}
    anything = {"type": "object"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "keras-nmt serve", "version": version,
                 "description": "LibreTranslate's API, and the explorer's own."},
        "paths": {
            "/translate": _post("Translate texts (LibreTranslate)", translate,
                                ["q", "source", "target"],
                                _json_ok("the translations", translated),
                                400, 403, 405, 413, 415, 429, 503),
            "/languages": _get("The languages served, each with its targets",
                               _json_ok("the languages", {"type": "array", "items": language}),
                               405),
            "/detect": _post("Detect the language of a text, among those served",
                             {"q": _TEXTS, "api_key": key}, ["q"],
                             _json_ok("the served languages, most likely first",
                                      {"type": "array", "items": _DETECTED}),
                             400, 403, 405, 413, 415),
            "/translate_file": {"post": {
                "summary": "Translate a file (.txt, .html, .htm)",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "required": ["file", "source", "target"],
                               "properties": {"file": {"type": "string", "format": "binary"},
                                              "source": {"type": "string"},
                                              "target": {"type": "string"},
                                              "api_key": key}}}}},
                "responses": {**_json_ok("where to download the translation", {
                    "type": "object", "properties": {"translatedFileUrl": {"type": "string"}}}),
                    **_errors(400, 403, 405, 413, 415, 429, 503)}}},
            "/download_file/{filename}": {"get": {
                "summary": "A translated file, by the name /translate_file gave",
                "parameters": [{"name": "filename", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the file, as an attachment"},
                              **_errors(404, 405)}}},
            "/frontend/settings": _get("Settings for a LibreTranslate front end",
                                       _json_ok("the settings", anything), 405),
            "/spec": _get("This document", _json_ok("the OpenAPI document", anything), 405),
            "/health": _get("Whether the server answers",
                            _json_ok("always the same", {"type": "object", "properties": {
                                "status": {"type": "string", "enum": ["ok"]}}}), 405),
            "/metrics": _get("Counters in Prometheus' text format", {"200": {
                "description": "requests, sentences, errors, batch sizes, garbage collections",
                "content": {"text/plain": {"schema": {"type": "string"}}}}}, 405),
            "/api/models": _get("The models and what the explorer can show of each",
                                _json_ok("the models", anything), 405),
            "/api/translate": _post("n-best lists or samples of a named model", rich, ["q"],
                                    _json_ok("the translations with their scores", anything),
                                    400, 403, 404, 405, 413, 415, 429, 503, form=False),
            "/api/explore": _post("One sentence's beam search tree, n-best list and attention",
                                  {"model": {"type": "string"}, "q": {"type": "string"},
                                   "beam_size": {"type": "integer"},
                                   "n_best": {"type": "integer"},
                                   "length_penalty": {"type": "number"},
                                   "top_k": {"type": "integer"}, "api_key": key}, ["q"],
                                  _json_ok("the explorer's view", anything),
                                  400, 403, 404, 405, 413, 415, 503, form=False),
        },
    }
