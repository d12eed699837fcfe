"""The extension's type stub (`ppg/_ppg.pyi`) against the extension itself: the same
functions, classes and methods, with the same parameters in the same order and the same
defaults. A function added, renamed or given a new argument in Rust fails here until the
stub says so."""

import ast
import inspect
from pathlib import Path

import ppg
import ppg._ppg as ext

STUB = Path(ppg.__file__).with_name("_ppg.pyi")


def parameters(args: ast.arguments) -> list:
    """(name, default) of every parameter but `self`; a missing default is `...`."""
    plain = args.posonlyargs + args.args
    defaults = [...] * (len(plain) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults
    ]
    named = list(zip([a.arg for a in plain], defaults))
    named += [
        (a.arg, ... if d is None else ast.literal_eval(d))
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
    ]
    return [(n, d) for n, d in named if n != "self"]


def runtime(obj) -> list:
    """The parameters pyo3 gives `obj` in its `__text_signature__`."""
    text = obj.__text_signature__.replace("$self", "self")
    return parameters(ast.parse(f"def f{text}: pass").body[0].args)


def stub_items():
    tree = ast.parse(STUB.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    constants = {
        n.target.id: ast.unparse(n.annotation)
        for n in tree.body
        if isinstance(n, ast.AnnAssign)
    }
    return functions, classes, constants


def test_every_name_of_the_extension_is_in_the_stub_and_back():
    functions, classes, constants = stub_items()
    public = {n for n in dir(ext) if not n.startswith("_")}
    assert public == set(functions) | set(classes) | set(constants)
    for name, annotation in constants.items():
        value = getattr(ext, name)
        if annotation == "int":
            assert isinstance(value, int), name
        else:
            assert annotation == "List[str]", (name, annotation)
            assert isinstance(value, list) and value, name
            assert all(isinstance(v, str) for v in value), name


def test_functions_take_the_stubs_parameters():
    functions, _, _ = stub_items()
    assert functions, "the stub has no function"
    for name, node in functions.items():
        assert runtime(getattr(ext, name)) == parameters(node.args), name


def test_classes_have_the_stubs_methods_and_parameters():
    _, classes, _ = stub_items()
    for name, node in classes.items():
        cls = getattr(ext, name)
        methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        public = {
            n for n in dir(cls) if not n.startswith("_") and not hasattr(object, n)
        }
        assert public == {m for m in methods if not m.startswith("_")}, name
        for method, m in methods.items():
            attribute = inspect.getattr_static(cls, method)
            if isinstance(attribute, property) or type(attribute).__name__ == "getset_descriptor":
                continue
            # The constructor's signature is the class's.
            target = cls if method == "__init__" else getattr(cls, method)
            assert runtime(target) == parameters(m.args), f"{name}.{method}"
