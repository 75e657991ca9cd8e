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


def lazy_package(name, exports):
    """Makes package `name` import each of `exports` (`{public name: module}`) on first use.

    Returns the sorted public names, the package's `__all__`.
    """
    package = sys.modules[name]
    package._lazy_exports = dict(exports)
    package.__class__ = _LazyPackage
    return sorted(exports)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; calls `then()` once module `name` is imported and no module of
    `package` is still being executed.

    The second condition matters when a module of the package is the first to import `name`
    (`from keras_nmt.layers.luong_attention import LuongAttention` as a program's first line):
    `then()` may import any module of the package, and run in the middle of that first one it
    met it half-defined (a circular-import error). So it waits for the outermost one to end.
    """

    def __init__(self, name, package, then):
        self.name, self.package, self.then = name, package, then
        self.executing = 0  # modules of `package` (or `name`) being executed, one inside another
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
            self.executing += 1
            try:
                execute(module)
            finally:
                self.executing -= 1
            self._call_when_ready()

        spec.loader.exec_module = exec_module
        return spec

    def _call_when_ready(self):
        if self.executing == 0 and self.name in sys.modules and self in sys.meta_path:
            sys.meta_path.remove(self)  # once; and `then` imports without coming here
            self.then()


def after_import(name, then, package):
    """Calls `then()` once module `name` is imported: now if it is, else after its import, and
    after the import of any module of `package` during which `name` was imported.

    `import keras_nmt` stays light (no Keras, no TensorFlow), yet a `.keras` file of ours loads
    with plain `keras.models.load_model` once Keras is there: Keras finds a class only among
    those registered, and ours register when their modules are imported.
    """
    if name in sys.modules:
        then()
    else:
        sys.meta_path.insert(0, _AfterImport(name, package, then))
