"""Find, in source code, the strings a learner reads in outputs, as translation templates.

The Chinese notebooks keep the English code, so their outputs are localized where they are
shown (:mod:`mishgrad.book.i18n`). What needs an entry in ``translations/zh-CN`` is found here by
reading the syntax tree of each notebook code cell and helper module: the text arguments of
the calls that put words on screen — ``table``'s headers, figure titles, axis labels,
legend labels and annotations, the exercise verdicts (``wrong``, ``wrong_kind``, ``correct``,
hints, usage messages), the messages of the errors a learner debugs with (``KernelError``,
``TwinBuildError``, which translate their own message, and a refused plan's
``plan_refused``), the descriptions of notebook 07's misuse table (``Misuse``), and strings a
module passes to :func:`mishgrad.book.i18n.translate` or
:func:`mishgrad.kernel.messages.translate` itself.

An f-string becomes a template with numbered fields (``f"{n} tiles of {L}"`` →
``"{0} tiles of {1}"``), and so does a string joined with ``+`` (each expression joined
becomes a field); a field that picks between literal strings (``{"yes" if ok else
"no"}``) adds each literal as an entry of its own.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from mishgrad.book.i18n import worth_translating

#: Calls whose first argument is text: method or function name.
FIRST_ARGUMENT: Final = frozenset(
    {
        "set_title",
        "set_xlabel",
        "set_ylabel",
        "suptitle",
        "annotate",
        "wrong",
        "wrong_kind",
        "correct",
        "learner_function",
        "set_text",
        "set_xticklabels",
        "set_yticklabels",
        "Verdict",
        "translate",
        "KernelError",
        "TwinBuildError",
        "plan_refused",
    }
)
#: Calls whose text arguments are at other positions.
AT_POSITION: Final = {
    "table": (1,),
    "text": (2,),
    "equal_or_hint": (2,),
    "close_or_hint": (2,),
    "Misuse": (1, 2),
}
#: Keyword arguments that carry text, whatever the call.
KEYWORDS: Final = frozenset(
    {
        "label",
        "title",
        "xlabel",
        "ylabel",
        "headers",
        "hint",
        "off_grid",
        "usage",
        "message",
        "labels",
        "remark",
        "meaning",
    }
)
#: Module-level constants whose strings (a dict's values) are table headers, labels or hints.
CONSTANT_NAME: Final = re.compile(r"(HEADERS|COLUMNS|LABELS|TITLES|MESSAGE|HINTS?|USAGE)$")


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _parts(node: ast.expr) -> list[ast.expr]:
    """The pieces of a string built with ``+``, in order: literals, f-strings, expressions."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left) + _parts(node.right)
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.FormattedValue) else v for v in node.values]
    return [node]


def _template(node: ast.expr) -> tuple[str, list[ast.expr]]:
    pieces, fields = [], []
    for part in _parts(node):
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            pieces.append(part.value.replace("{", "{{").replace("}", "}}"))
        else:  # a field of an f-string, or an expression joined with +
            pieces.append(f"{{{len(fields)}}}")
            fields.append(part)
    return "".join(pieces), fields


def _is_text(node: ast.expr) -> bool:
    """A string built with ``+`` from at least one literal or f-string."""
    return any(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in _parts(node))


def texts_of(node: ast.AST) -> Iterator[str]:
    """The templates a text-valued expression can produce."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value.replace("{", "{{").replace("}", "}}")
    elif isinstance(node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and _is_text(node)):
        template, fields = _template(node)
        yield template
        for field in fields:
            if isinstance(field, ast.IfExp):
                yield from texts_of(field)
    elif isinstance(node, ast.IfExp):
        yield from texts_of(node.body)
        yield from texts_of(node.orelse)
    elif isinstance(node, ast.BoolOp):  # title or f"..." (a default)
        for value in node.values:
            yield from texts_of(value)
    elif isinstance(node, (ast.List, ast.Tuple)):
        for element in node.elts:
            yield from texts_of(element)
    elif isinstance(node, ast.Dict):  # a constant's values: hints by signal, say
        for value in node.values:
            yield from texts_of(value)
    elif isinstance(node, ast.Starred):
        yield from texts_of(node.value)


def _arguments(call: ast.Call) -> Iterator[ast.AST]:
    name = _name(call)
    if name in FIRST_ARGUMENT and call.args:
        yield call.args[0]
    for position in AT_POSITION.get(name, ()):
        if len(call.args) > position:
            yield call.args[position]
    for keyword in call.keywords:
        if keyword.arg in KEYWORDS:
            yield keyword.value


def _constants(tree: ast.AST) -> Iterator[ast.AST]:
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and CONSTANT_NAME.search(t.id) for t in targets):
                if node.value is not None:
                    yield node.value


def templates_in_source(source: str) -> list[str]:
    """Every template in Python source, in order of appearance, without repeats."""
    tree = ast.parse(source)
    nodes = [
        arg for call in ast.walk(tree) if isinstance(call, ast.Call) for arg in _arguments(call)
    ]
    nodes += list(_constants(tree))
    found = dict.fromkeys(t for node in nodes for t in texts_of(node) if worth_translating(t))
    return list(found)


def templates_in_notebook(path: Path) -> list[str]:
    """The templates of a notebook's code cells, in cell order (IPython magics skipped)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found: dict[str, None] = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            lines = [
                line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
            ]
            found.update(dict.fromkeys(templates_in_source("\n".join(lines))))
    return list(found)


#: Where Jupyter stores the widgets' state in a notebook's metadata.
WIDGET_STATE: Final = "application/vnd.jupyter.widget-state+json"


# Three English words in a row, outside code spans, links and formulas: prose left untranslated.
_ENGLISH_RUN: Final = re.compile(r"\b[A-Za-z][a-z]+(?:[ ,'’-]+[A-Za-z][a-z]+){2,}\b")
# A table cell that is an English label of two words or more ("flush band", "kernel, ieee"):
# shorter than a run of three, but a label a reader of the translation should not meet.
_ENGLISH_LABEL: Final = re.compile(r"[A-Za-z][a-z]{2,}(?:[ ,'’-]+[a-z]{2,})+")
# Code (fenced, or an HTML <pre>), links, formulas, quotations ('…', “…”: a message quoted as
# its program wrote it) and tags (HTML's, and reprs such as <Figure size …>).
_NOT_PROSE: Final = re.compile(
    r"```.*?```|(`+).+?\1|\]\([^)]*\)|https?://\S+|\$\$.+?\$\$|\$[^$\n]+\$"
    r"|(?<![A-Za-z])'[^'\n]+'(?![A-Za-z])|“[^”\n]+”|<pre\b.*?</pre>|</?[A-Za-z][^<>]*>",
    re.DOTALL,
)


def _widget_outputs(notebook: dict) -> list[dict]:
    """The outputs stored in the notebook's widget state (an ``Output`` widget's drawing)."""
    state = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    return [o for model in state.values() for o in model.get("state", {}).get("outputs", [])]


def english_in_outputs(notebook: dict) -> list[tuple[str, str]]:
    """English prose in a translated notebook's stored outputs (its JSON): (cell id, words <- line).

    Reads what the helpers show: an output's Markdown, else its HTML (a source listing has
    both), else its plain text (results such as verdicts), in the cells and in the widgets'
    stored state (cell id ``widgets``); printed streams (logs, compiler messages) are the
    tools' own and are not read. Prose is three English words in a row; in a Markdown table,
    a cell that is an English label of two words or more counts too.
    """
    outputs = [(cell["id"], o) for cell in notebook["cells"] for o in cell.get("outputs", [])]
    outputs += [("widgets", o) for o in _widget_outputs(notebook)]
    found = []
    for cell_id, output in outputs:
        data = output.get("data", {})
        text = data.get("text/markdown") or data.get("text/html") or data.get("text/plain")
        text = text if isinstance(text, str) else "".join(text or ())
        for line in _NOT_PROSE.sub(" ", text).splitlines():
            words = _ENGLISH_RUN.findall(line)
            if line.lstrip().startswith("|"):  # a Markdown table row: its cells too
                cells = (cell.strip() for cell in line.strip().strip("|").split("|"))
                words += [c for c in cells if _ENGLISH_LABEL.fullmatch(c) and c not in words]
            if words:
                found.append((cell_id, f"{' / '.join(words)}  <-  {line.strip()}"))
    return found
