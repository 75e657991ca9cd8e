"""Packages whose public names are imported on first use (PEP 562), so that `import keras_nmt`,
the command line's `--help` and the parsers' defaults load no TensorFlow.

A package calls `lazy_package(__name__, {"Name": "keras_nmt.pkg.module", ...})` in place of
`from keras_nmt.pkg.module import Name` lines. A name that is also a submodule's name (e.g.
`keras_nmt.decoding.beam_search`, function and module) stays the function, as it was with eager
imports: importing the submodule does not shadow it.

Example:
    >>> import keras_nmt.decoding        # imports no keras
    >>> keras_nmt.decoding.GREEDY        # imports keras_nmt.decoding.decoding_options now
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types


class _LazyPackage(types.ModuleType):
    def __getattr__(self, name):
        exports = self.__dict__["_lazy_exports"]
        if name not in exports:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        before = self.__dict__.get("_lazy_before")
        if before is not None and name in before[1]:
            before[0]()
        value = getattr(importlib.import_module(exports[name]), name)
        types.ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name, value):
        # The import system sets `package.submodule` after importing a submodule; a public name
        # spelled like its module keeps meaning the public object.
        exports = self.__dict__.get("_lazy_exports", {})
        if (name in exports and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        types.ModuleType.__setattr__(self, name, value)

    def __dir__(self):
        return sorted(set(self.__dict__) | set(self.__dict__["_lazy_exports"]))


def lazy_package(name, exports, before=None, names=()):
    """Makes package `name` import each of `exports` (`{public name: module}`) on first use.

    `before()`, when given, is called before the first import of any of `names` (the top-level
    package starts TensorFlow quietly before the names that load it).

    Returns the sorted public names, the package's `__all__`.
    """
    package = sys.modules[name]
    package._lazy_exports = dict(exports)
    package._lazy_before = (before, frozenset(names)) if before is not None else None
    package.__class__ = _LazyPackage
    return sorted(exports)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; calls `then()` once module `name` is imported, by the program or
    with one of the package's modules `users`, and no module of `package` is being executed.

    `name` imported inside another of the package's modules (`tensorflow`, which the tokenizers
    need, imports Keras) does not count: a process that only tokenizes never imports the rest.
    And the package's modules must all be done: `then()` may import any of them, and run in
    the middle of the first one (`from keras_nmt.layers.attention import LuongAttention`
    as a program's first line) it met that one half-defined, a circular-import error.
    """

    def __init__(self, name, package, users, then):
        self.name, self.package, self.users, self.then = name, package, users, then
        self.executing = 0  # modules of `package` (or `name`) being executed, one inside another
        self.wanted = False  # `name` imported by the program, or one of `users` imported
        self.finding = False

    def find_spec(self, fullname, path=None, target=None):
        watched = fullname == self.name or fullname.startswith(self.package + ".")
        if not watched or self.finding:
            return None
        self.finding = True  # the search below walks sys.meta_path again: not through here
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.finding = False
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            if fullname in self.users or (fullname == self.name and self.executing == 0):
                self.wanted = True
            self.executing += 1
            try:
                execute(module)
            finally:
                self.executing -= 1
            self._call_when_ready()

        spec.loader.exec_module = exec_module
        return spec

    def _call_when_ready(self):
        ready = self.wanted and self.executing == 0 and self.name in sys.modules
        if ready and self in sys.meta_path:
            sys.meta_path.remove(self)  # once; and `then` imports without coming here
            self.then()


def after_import(name, then, package, users=()):
    """Calls `then()` once module `name` is imported by the program (now if it is), or once
    one of `users`, the modules of `package` that use `name`, is imported; in both cases after
    the import of any module of `package` under way.

    `import keras_nmt` stays light (no Keras, no TensorFlow), yet a `.keras` file of ours loads
    with plain `keras.models.load_model` once Keras is there: Keras finds a class only among
    those registered, and ours register when their modules are imported.
    """
    if name in sys.modules:
        then()
    else:
        sys.meta_path.insert(0, _AfterImport(name, package, set(users), then))
