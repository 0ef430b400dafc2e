# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the chart's templates read from outside themselves, found statically: the files they read through
`.Files.*` and the modules they test in `global.enabledModules`. The templates are every file of templates/ and
charts/*/templates/, and the `*.tpl` files they read (lib-helm renders those with `tpl`).

`reads(root)` lists every `.Files.Get/GetBytes/Lines/Glob` call with the paths or globs it can read; `modules(root)`
every module name tested with `has "<module>" ...global.enabledModules`. An argument is resolved when it is a string
literal, `printf`/`print` of resolved ones, a variable set from those, the path a `range $path, $_ := .Files.Glob`
yields, or `index . N` inside a `define` whose every `include` passes a `(list ...)` (how helm_lib's helpers take
their arguments). Anything else (a value, a computed template name, `.Files` passed on) fails with one line naming
the template file and line: a read or a switch the scan cannot see would ship or test nothing."""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import ReleaseError

READ_METHODS = ("Get", "GetBytes", "Lines", "Glob")
ENABLED_MODULES = ("Values", "global", "enabledModules")
GLOB_CHARS = "*?[{\\"
GLOBBED = "\0globbed"  # the value of a path a `.Files.Glob` range yields: read by that glob already

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FIELDS = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?)")
_SPACE = re.compile(r"[ \t\r\n]*")


class Unresolved(Exception):
    """An argument the scan cannot reduce to literal strings; the message says what it is."""


# --- the lexer: actions of a template file, tokens of an action ---------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str  # str, num, dot, field, var, ident, (, ), |, ",", :=, =
    value: object
    start: int  # offset in the file
    end: int


def _actions(text: str, rel: str, line_of) -> list[tuple[int, str]]:
    """(offset of the action's body in the file, body) of every `{{ }}` action, comments left out."""
    out = []
    pos = 0
    while (open_at := text.find("{{", pos)) >= 0:
        body = open_at + 2
        if text.startswith("- ", body) or text.startswith("-\t", body) or text.startswith("-\n", body):
            body += 1
        inner = _SPACE.match(text, body).end()
        if text.startswith("/*", inner):
            close = text.find("*/", inner + 2)
            end = text.find("}}", close) if close >= 0 else -1
            if end < 0:
                raise ReleaseError(f"{rel}:{line_of(open_at)}: unterminated comment")
            pos = end + 2
            continue
        i, quote = body, ""
        while i < len(text):  # the closing braces outside any string literal
            ch = text[i]
            if quote:
                if ch == "\\" and quote != "`":
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"`'":
                quote = ch
            elif text.startswith("}}", i):
                break
            i += 1
        else:
            raise ReleaseError(f"{rel}:{line_of(open_at)}: unterminated action")
        end = i - 1 if i > body and text[i - 1] == "-" and text[i - 2:i - 1] in (" ", "\t", "\r", "\n") else i
        out.append((body, text[body:end]))
        pos = i + 2
    return out


def _tokens(body: str, offset: int, rel: str, line_of) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(body):
        ch, start = body[i], offset + i
        if ch in " \t\r\n":
            i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            raw = body[i:j + 1]
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw[1:-1]
            out.append(Token("str", value, start, offset + j + 1))
            i = j + 1
        elif ch == "`":
            j = body.index("`", i + 1)
            out.append(Token("str", body[i + 1:j], start, offset + j + 1))
            i = j + 1
        elif ch == "'":
            j = body.index("'", i + 2 if body[i + 1] == "\\" else i + 1)
            out.append(Token("num", body[i:j + 1], start, offset + j + 1))
            i = j + 1
        elif ch in "()|,":
            out.append(Token(ch, ch, start, start + 1))
            i += 1
        elif body.startswith(":=", i):
            out.append(Token(":=", ":=", start, start + 2))
            i += 2
        elif ch == "=":
            out.append(Token("=", "=", start, start + 1))
            i += 1
        elif ch == "$":
            name = _IDENT.match(body, i + 1)
            j = name.end() if name else i + 1
            fields = _FIELDS.match(body, j)
            chain = tuple(fields.group()[1:].split(".")) if fields else ()
            end = fields.end() if fields else j
            out.append(Token("var", (name.group() if name else "", chain), start, offset + end))
            i = end
        elif ch == "." and (fields := _FIELDS.match(body, i)):
            out.append(Token("field", tuple(fields.group()[1:].split(".")), start, offset + fields.end()))
            i = fields.end()
        elif ch == ".":
            out.append(Token("dot", ".", start, start + 1))
            i += 1
        elif number := _NUMBER.match(body, i):
            out.append(Token("num", number.group(), start, offset + number.end()))
            i = number.end()
        elif ident := _IDENT.match(body, i):
            out.append(Token("ident", ident.group(), start, offset + ident.end()))
            i = ident.end()
        else:
            raise ReleaseError(f"{rel}:{line_of(start)}: unexpected {ch!r} in an action")
    return out


# --- the parser: pipelines, commands, operands ---------------------------------------------------------------------

@dataclass
class Node:
    kind: str  # str, num, dot, field, var, ident, paren
    value: object  # str; fields tuple; (name, fields); Pipeline for paren (fields of a chain in .chain)
    start: int
    end: int
    chain: tuple[str, ...] = ()


@dataclass
class Command:
    args: list[Node]
    start: int
    end: int


@dataclass
class Pipeline:
    decl: list[str] = field(default_factory=list)
    cmds: list[Command] = field(default_factory=list)


def _parse_pipeline(toks: list[Token], i: int, rel: str, line_of) -> tuple[Pipeline, int]:
    pipe = Pipeline()
    names = []
    j = i
    while j < len(toks) and toks[j].kind == "var" and not toks[j].value[1]:
        names.append(toks[j].value[0])
        if j + 1 < len(toks) and toks[j + 1].kind == ",":
            j += 2
            continue
        if j + 1 < len(toks) and toks[j + 1].kind in (":=", "="):
            pipe.decl, i = names, j + 2
        break
    cmd: list[Node] = []
    while i < len(toks) and toks[i].kind != ")":
        tok = toks[i]
        if tok.kind == "|":
            if not cmd:
                raise ReleaseError(f"{rel}:{line_of(tok.start)}: empty command in a pipeline")
            pipe.cmds.append(Command(cmd, cmd[0].start, cmd[-1].end))
            cmd, i = [], i + 1
            continue
        if tok.kind == "(":
            inner, k = _parse_pipeline(toks, i + 1, rel, line_of)
            if k >= len(toks):
                raise ReleaseError(f"{rel}:{line_of(tok.start)}: unclosed parenthesis")
            node = Node("paren", inner, tok.start, toks[k].end)
            i = k + 1
            if i < len(toks) and toks[i].kind == "field" and toks[i].start == node.end:  # (x).Field
                node.chain, node.end = toks[i].value, toks[i].end
                i += 1
            cmd.append(node)
            continue
        if tok.kind in (",", ":=", "="):
            raise ReleaseError(f"{rel}:{line_of(tok.start)}: unexpected {tok.value!r} in an action")
        cmd.append(Node(tok.kind, tok.value, tok.start, tok.end))
        i += 1
    if cmd:
        pipe.cmds.append(Command(cmd, cmd[0].start, cmd[-1].end))
    return pipe, i


# --- the facts of every template file ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ctx:
    scope: str  # a define's name, or "file:<rel>" for a file's top-level text
    dot_is_arg: bool  # `.` is the argument the define was included with (not inside range/with)
    rel: str


@dataclass(frozen=True)
class Read:
    """One `.Files.<method>` call and what it reads: the paths or globs its argument resolves to."""
    where: str  # <file>:<line>
    method: str
    patterns: tuple[str, ...]


@dataclass
class _Facts:
    sources: dict[str, str] = field(default_factory=dict)  # rel -> text
    bindings: dict[tuple[str, str], list] = field(default_factory=lambda: defaultdict(list))
    calls: dict[str, list] = field(default_factory=lambda: defaultdict(list))  # define -> [(arg, ctx, where)]
    dynamic_calls: list = field(default_factory=list)  # [(name node, arg, ctx, where)]
    file_calls: list = field(default_factory=list)  # [(method, arg node | None, piped cmd | None, ctx, where, text)]
    module_tests: list = field(default_factory=list)  # [(name node, ctx, where, text)]


def template_files(root: Path) -> list[str]:
    """The chart's template files (the module's and its subcharts'), relative to root, sorted."""
    found = {p for p in (root / "templates").rglob("*") if p.is_file()}
    for sub in (root / "charts").rglob("templates"):  # a subchart's, at any depth
        found |= {p for p in sub.rglob("*") if p.is_file()}
    return sorted(p.relative_to(root).as_posix() for p in found)


class _Scanner:
    def __init__(self, root: Path):
        self.facts = _Facts()
        self._em_used: set[tuple[str, int]] = set()  # (file, offset) of the enabledModules operands of `has` tests
        for rel in template_files(root):
            self.add(root, rel)

    def add(self, root: Path, rel: str) -> None:
        text = (root / rel).read_text(errors="replace")
        self.facts.sources[rel] = text
        self._scan_file(rel, text)

    def _scan_file(self, rel: str, text: str) -> None:
        starts = [0] + [m.end() for m in re.finditer("\n", text)]

        def line_of(offset: int) -> int:
            return bisect.bisect_right(starts, offset)

        self.rel, self.text, self.line_of = rel, text, line_of
        stack: list[tuple[str, str, bool]] = []  # (keyword, scope, dot_is_arg) of the open blocks
        scope, dot_is_arg = f"file:{rel}", False
        for offset, body in _actions(text, rel, line_of):
            toks = _tokens(body, offset, rel, line_of)
            if not toks:
                continue
            head = toks[0].value if toks[0].kind == "ident" else None
            where = f"{rel}:{line_of(toks[0].start)}"
            if head == "end":
                if not stack:
                    raise ReleaseError(f"{where}: `end` without a block")
                _, scope, dot_is_arg = stack.pop()
                continue
            if head in ("define", "block", "template"):
                if len(toks) < 2 or toks[1].kind != "str":
                    raise ReleaseError(f"{where}: {head} needs a literal template name")
                name = toks[1].value
                ctx = Ctx(scope, dot_is_arg, rel)
                if head != "define":
                    pipe, _ = _parse_pipeline(toks, 2, rel, line_of)
                    arg = Node("paren", pipe, toks[2].start, toks[-1].end) if len(toks) > 2 else None
                    self.facts.calls[name].append((arg, ctx, where))
                    self._walk(pipe, ctx)
                if head != "template":
                    stack.append((head, scope, dot_is_arg))
                    scope, dot_is_arg = name, True
                continue
            if head in ("if", "range", "with", "else"):
                rest = toks[1:]
                if head == "else" and rest and rest[0].kind == "ident" and rest[0].value in ("if", "with"):
                    if rest[0].value == "with":
                        dot_is_arg = False
                    rest = rest[1:]
                ctx = Ctx(scope, dot_is_arg, rel)
                if rest:
                    pipe, _ = _parse_pipeline(rest, 0, rel, line_of)
                    self._walk(pipe, ctx, ranged=head == "range")
                if head != "else":
                    stack.append((head, scope, dot_is_arg))
                    if head in ("range", "with"):
                        dot_is_arg = False
                continue
            if head in ("break", "continue"):
                continue
            pipe, end = _parse_pipeline(toks, 0, rel, line_of)
            if end < len(toks):
                raise ReleaseError(f"{rel}:{line_of(toks[end].start)}: unbalanced parenthesis")
            self._walk(pipe, Ctx(scope, dot_is_arg, rel))
        if stack:
            raise ReleaseError(f"{rel}: {stack[-1][0]} without `end`")

    def _src(self, start: int, end: int) -> str:
        return " ".join(self.text[start:end].split())

    def _walk(self, pipe: Pipeline, ctx: Ctx, ranged: bool = False) -> None:
        """Record the pipeline's bindings, calls, file reads and module tests (nested ones too)."""
        if pipe.decl:
            key_of_glob = ranged and len(pipe.decl) == 2 and self._is_glob(pipe, ctx)
            for n, name in enumerate(pipe.decl):
                if ranged and (len(pipe.decl) == 2 and n == 0):
                    kind = "globbed" if key_of_glob else "unknown"
                elif ranged:
                    kind = "element"
                else:
                    kind = "value"
                self.facts.bindings[(ctx.scope, name)].append((kind, pipe, ctx))
        for n, cmd in enumerate(pipe.cmds):  # first the module tests: they mark the enabledModules they read
            self._module_test(cmd, pipe.cmds[:n], ctx)
        for n, cmd in enumerate(pipe.cmds):
            self._command(cmd, pipe.cmds[n - 1] if n else None, ctx)
            for node in cmd.args:
                if node.kind == "paren":
                    self._walk(node.value, ctx)

    def _is_glob(self, pipe: Pipeline, ctx: Ctx) -> bool:
        if len(pipe.cmds) != 1:
            return False
        head = pipe.cmds[0].args[0]
        if head.kind in ("field", "var") and _fields(head)[-2:] == ("Files", "Glob"):
            return True
        if head.kind == "var" and not head.value[1] and len(pipe.cmds[0].args) == 1:
            bound = self.facts.bindings.get((ctx.scope, head.value[0]), [])
            return bool(bound) and all(kind == "value" and self._is_glob(p, c) for kind, p, c in bound)
        return False


    def _module_test(self, cmd: Command, before: list[Command], ctx: Ctx) -> None:
        """`has <name> <enabledModules>` or `<enabledModules> | has <name>`."""
        head = cmd.args[0]
        if head.kind != "ident" or head.value != "has":
            return
        if (len(cmd.args) == 3 and self._em_operand(cmd.args[2])) or \
                (len(cmd.args) == 2 and before and self._em_pipeline(Pipeline(cmds=before))):
            where = f"{self.rel}:{self.line_of(cmd.start)}"
            self.facts.module_tests.append((cmd.args[1], ctx, where, self._src(cmd.start, cmd.end)))

    def _em_operand(self, node: Node) -> bool:
        """Whether the operand is global.enabledModules (`| default list` at most); marks it as tested."""
        fields = _fields(node) if node.kind in ("field", "var") else node.chain
        if fields[-3:] == ENABLED_MODULES:  # .Values..., $context.Values..., (index . 0).Values...
            self._em_used.add((self.rel, node.start))
            return True
        return node.kind == "paren" and not node.chain and self._em_pipeline(node.value)

    def _em_pipeline(self, pipe: Pipeline) -> bool:
        if pipe.decl or not pipe.cmds or len(pipe.cmds[0].args) != 1:
            return False
        if any(c.args[0].kind != "ident" or c.args[0].value != "default" for c in pipe.cmds[1:]):
            return False
        return self._em_operand(pipe.cmds[0].args[0])

    def _command(self, cmd: Command, piped: Command | None, ctx: Ctx) -> None:
        head = cmd.args[0]
        if head.kind == "ident" and head.value == "include":
            where = f"{self.rel}:{self.line_of(cmd.start)}"
            if len(cmd.args) != 3:
                raise ReleaseError(f"{where}: {self._src(cmd.start, cmd.end)}: include takes a name and one argument")
            name, arg = cmd.args[1], cmd.args[2]
            if name.kind == "str":
                self.facts.calls[name.value].append((arg, ctx, where))
            else:
                self.facts.dynamic_calls.append((name, arg, ctx, where))
        for n, node in enumerate(cmd.args):
            fields = _fields(node) if node.kind in ("field", "var") else node.chain
            line = f"{self.rel}:{self.line_of(node.start)}"
            text = self._src(node.start, node.end)
            if "enabledModules" in fields and (self.rel, node.start) not in self._em_used:
                raise ReleaseError(f"{line}: {text} is read other than by `has \"<module>\" "
                                   f"(.Values.global.enabledModules | default list)`: the modules the chart reacts "
                                   f"to cannot be derived")
            if "Files" not in fields:
                continue
            rest = fields[fields.index("Files") + 1:]
            if rest and rest[0] in ("AsConfig", "AsSecrets"):
                raise ReleaseError(f"{line}: {text} reads every file of the chart: read a .Files.Glob instead")
            if len(rest) != 1 or rest[0] not in READ_METHODS or n != 0 or node.kind == "paren":
                raise ReleaseError(f"{line}: {text} is not a call of .Files.Get/GetBytes/Lines/Glob: what it "
                                   f"reads cannot be derived")
            call = self._src(cmd.start, cmd.end)
            if len(cmd.args) == 2:
                self.facts.file_calls.append((rest[0], cmd.args[1], None, ctx, line, call))
            elif len(cmd.args) == 1 and piped is not None:
                self.facts.file_calls.append((rest[0], None, piped, ctx, line, f"{self._src(piped.start, piped.end)}"
                                              f" | {call}"))
            else:
                raise ReleaseError(f"{line}: {call}: .Files.{rest[0]} takes one path")


def _fields(node: Node) -> tuple[str, ...]:
    return node.value[1] if node.kind == "var" else node.value if node.kind == "field" else ()


# --- the resolver: an argument reduced to the literal strings it can take --------------------------------------------

_VERB = re.compile(r"%(%|[-+# 0]*[0-9]*(?:\.[0-9]+)?([a-zA-Z]))")


class _Resolver:
    def __init__(self, facts: _Facts):
        self.facts = facts

    def _text(self, node: Node | Command, ctx: Ctx) -> str:
        return " ".join(self.facts.sources[ctx.rel][node.start:node.end].split())

    def node(self, node: Node, ctx: Ctx, seen: frozenset = frozenset()) -> set[str]:
        if node.kind == "str":
            return {node.value}
        if node.kind == "paren" and not node.chain:
            return self.pipeline(node.value, ctx, seen)
        if node.kind == "var" and node.value[0] and not node.value[1]:
            return self.variable(node.value[0], ctx, seen)
        raise Unresolved(f"`{self._text(node, ctx)}` is not a literal")

    def pipeline(self, pipe: Pipeline, ctx: Ctx, seen: frozenset) -> set[str]:
        piped: set[str] | None = None
        for cmd in pipe.cmds:
            piped = self.command(cmd, piped, ctx, seen)
        if piped is None:
            raise Unresolved("an empty pipeline")
        return piped

    def variable(self, name: str, ctx: Ctx, seen: frozenset) -> set[str]:
        key = ("var", ctx.scope, name)
        if key in seen:
            return set()  # a cycle adds nothing the other bindings do not
        bound = self.facts.bindings.get((ctx.scope, name))
        if not bound:
            raise Unresolved(f"`${name}` is not set in {ctx.rel}")
        out: set[str] = set()
        for kind, pipe, where in bound:
            if kind == "globbed":
                out.add(GLOBBED)
            elif kind == "value":
                out |= self.pipeline(pipe, where, seen | {key})
            elif kind == "element" and len(pipe.cmds) == 1 and _is_call(pipe.cmds[0], "list"):
                for item in pipe.cmds[0].args[1:]:
                    out |= self.node(item, where, seen | {key})
            else:
                raise Unresolved(f"`${name}` is set by a range over `{self._text(pipe.cmds[0], where)}`")
        return out

    def command(self, cmd: Command, piped: set[str] | None, ctx: Ctx, seen: frozenset) -> set[str]:
        head = cmd.args[0]
        if _is_call(cmd, "printf", "print"):
            args = [self.node(a, ctx, seen) for a in cmd.args[1:]]
            if piped is not None:
                args.append(piped)
            out = set()
            for combo in itertools.product(*args):
                if GLOBBED in combo:
                    raise Unresolved(f"`{self._text(cmd, ctx)}` formats a path a glob yielded")
                out.add(_printf(combo[0], combo[1:]) if head.value == "printf" else "".join(combo))
            return out
        if _is_call(cmd, "index") and len(cmd.args) == 3 and cmd.args[1].kind == "dot" \
                and cmd.args[2].kind == "num" and cmd.args[2].value.isdigit() and piped is None:
            if not ctx.dot_is_arg:
                raise Unresolved(f"`{self._text(cmd, ctx)}` is not an argument of a define")
            return self.argument(ctx.scope, int(cmd.args[2].value), seen)
        if len(cmd.args) == 1 and piped is None:
            return self.node(head, ctx, seen)
        raise Unresolved(f"`{self._text(cmd, ctx)}` is not a literal")

    def argument(self, define: str, index: int, seen: frozenset) -> set[str]:
        """`index . <index>` inside a define: that element of the (list ...) of every include of it."""
        key = ("arg", define, index)
        if key in seen:
            return set()
        for name, arg, ctx, where in self.facts.dynamic_calls:
            if self._lists(arg, ctx) is not None:
                try:
                    names = self.node(name, ctx, seen)
                except Unresolved:
                    raise Unresolved(f"{where} includes a computed template name with a list") from None
                if define in names:
                    raise Unresolved(f"{where} includes {define!r} by a computed name")
        out: set[str] = set()
        for arg, ctx, where in self.facts.calls.get(define, []):
            lists = self._lists(arg, ctx) if arg is not None else None
            if lists is None:
                text = self._text(arg, ctx) if arg is not None else "nothing"
                raise Unresolved(f"{where} passes `{text}` to {define!r}, not a (list ...)")
            for items, items_ctx in lists:
                if index < len(items):
                    out |= self.node(items[index], items_ctx, seen | {key})
        return out

    def _lists(self, arg: Node, ctx: Ctx) -> list[tuple[list[Node], Ctx]] | None:
        """The elements of a `(list ...)` argument (or of a variable set to one), or None when it is none."""
        if arg.kind == "paren" and not arg.chain and len(arg.value.cmds) == 1 and _is_call(arg.value.cmds[0], "list"):
            return [(arg.value.cmds[0].args[1:], ctx)]
        if arg.kind == "var" and arg.value[0] and not arg.value[1]:
            bound = self.facts.bindings.get((ctx.scope, arg.value[0]), [])
            lists = [(p.cmds[0].args[1:], c) for kind, p, c in bound
                     if kind == "value" and len(p.cmds) == 1 and _is_call(p.cmds[0], "list")]
            return lists if lists and len(lists) == len(bound) else None
        return None


def _is_call(cmd: Command, *names: str) -> bool:
    head = cmd.args[0]
    return head.kind == "ident" and (not names or head.value in names)


def _printf(fmt: str, args: tuple[str, ...]) -> str:
    out, used = [], 0
    pos = 0
    for m in _VERB.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        if m.group(1) == "%":
            out.append("%")
            continue
        if m.group(2) not in ("s", "v") or used >= len(args):
            raise Unresolved(f"printf {fmt!r}: only %s/%v of as many strings are resolved")
        out.append(args[used])
        used += 1
    if used != len(args):
        raise Unresolved(f"printf {fmt!r}: only %s/%v of as many strings are resolved")
    return "".join(out) + fmt[pos:]


# --- the queries ---------------------------------------------------------------------------------------------------

def folder(method: str, pattern: str) -> str:
    """The file or folder a `.Files` read needs: a path as it is, a glob's folder (its components before the first
    one with a glob character)."""
    parts = pattern.split("/")
    if method == "Glob":
        parts = list(itertools.takewhile(lambda part: not any(c in part for c in GLOB_CHARS), parts))
    return "/".join(parts)


def _reads(facts: _Facts) -> list[Read]:
    resolver = _Resolver(facts)
    out = []
    for method, arg, piped, ctx, where, text in facts.file_calls:
        try:
            values = resolver.node(arg, ctx) if arg is not None else resolver.command(piped, None, ctx, frozenset())
        except Unresolved as exc:
            raise ReleaseError(f"{where}: {text}: what it reads cannot be derived: {exc}") from None
        patterns = tuple(sorted(values - {GLOBBED}))
        if patterns:
            out.append(Read(where, method, patterns))
    return out


def _scan(root: Path) -> _Facts:
    """The facts of the chart's templates and of the `*.tpl` files they read: lib-helm renders those with `tpl`
    (monitoring/prometheus-rules/), so they are templates too, and may read or include in turn."""
    scanner = _Scanner(root)
    while True:
        found = set()
        for read in _reads(scanner.facts):
            for pattern in read.patterns:
                path = folder(read.method, pattern)
                if path and ".." not in path.split("/") and not path.startswith("/"):
                    top = root / path
                    found |= {p.relative_to(root).as_posix() for p in ([top] if top.is_file() else top.rglob("*.tpl"))
                              if p.is_file() and p.suffix == ".tpl"}
        new = sorted(found - set(scanner.facts.sources))
        if not new:
            return scanner.facts
        for rel in new:
            scanner.add(root, rel)


def reads(root: Path) -> list[Read]:
    """Every `.Files` read of the chart's templates, in file order, with the paths or globs it reads (a path a
    `.Files.Glob` yielded is left out: the glob is the read)."""
    return _reads(_scan(root))


def modules(root: Path) -> list[str]:
    """The module names the chart's templates test in global.enabledModules, sorted, once each."""
    facts = _scan(root)
    resolver = _Resolver(facts)
    out: set[str] = set()
    for name, ctx, where, text in facts.module_tests:
        try:
            out |= resolver.node(name, ctx)
        except Unresolved as exc:
            raise ReleaseError(f"{where}: {text}: the module cannot be derived: {exc}") from None
    return sorted(out)
