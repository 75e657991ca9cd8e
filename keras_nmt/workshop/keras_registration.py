"""Keras finds our classes in `.keras` files after `import keras_nmt`, which imports no Keras.

Keras finds a class of a saved model only among those registered, and ours register when their
modules are imported; `import keras_nmt` must stay light (the command line's `--help`, the
parsers' defaults). So `keras_nmt/__init__.py` asks `after_import` to register them once Keras
is imported, by the program or by one of our modules that uses it.
"""

import importlib.abc
import importlib.util
import sys


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
