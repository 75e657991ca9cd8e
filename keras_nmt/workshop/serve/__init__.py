"""Serving: `keras-nmt serve`'s HTTP application, its request batcher and the explorer page.

LibreTranslate's API (`app`: translate with detection (`detection`), HTML and files
(`documents`, `file_store`), languages, detect, spec (`openapi`), health) over run folders,
SavedModels and CTranslate2 exports, with the sentences of concurrent requests batched
together, glossaries, confidence and word alignments (`keras_nmt.inference`), Prometheus
metrics (`metrics`); a richer JSON API and a page (`static/`) that shows the n-best list, the
attention of every layer and head and the beam search tree. Needs the `serve` extra (Starlette,
uvicorn, prometheus-client, Lingua). Uses `inference`, `decoding` and `training`'s language
codes (docs/architecture.md); `cli.serve` runs it.

Example:
    >>> app = create_app(load_served_models(["es:en=runs/spa"]))
    >>> uvicorn.run(app, host="127.0.0.1", port=5000)                     # doctest: +SKIP
"""
