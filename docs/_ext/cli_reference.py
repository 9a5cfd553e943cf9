"""``.. typer-cli:: module:app``: the CLI reference, generated from the Typer app.

sphinx-click cannot document it: Typer (0.2x) builds its commands on its own vendored copy
of click (``typer._click``), which sphinx-click does not recognize as click commands.  The
command tree has click's interface all the same (``typer.main.get_command(app)``:
``list_commands``, ``get_command``, ``get_usage``, ``get_params``, ``get_help_record``), so
this directive walks it: one section per command (nested groups as subsections), its help
text, its usage line and its arguments and options with their help, exactly the text of
``sskernels COMMAND --help``.  The text is put into docutils nodes as it is, never parsed as
reStructuredText, so a help string cannot break the build.

Options: ``:prog:`` (the program's name, default the app's module name).
"""

from __future__ import annotations

import importlib
import inspect

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective


def _paragraphs(text):
    text = inspect.cleandoc(text or "")
    # click's \b marks a paragraph that must not be rewrapped
    return [p.replace("\b\n", "").strip() for p in text.split("\n\n") if p.strip()]


class TyperCLI(SphinxDirective):
    required_arguments = 1
    option_spec = {"prog": directives.unchanged}

    def run(self):
        import typer.main

        module, _, attr = self.arguments[0].partition(":")
        app = getattr(importlib.import_module(module), attr or "app")
        command = typer.main.get_command(app)
        prog = self.options.get("prog") or module.split(".")[0]
        ctx = command.context_class(command, info_name=prog)
        return self._command(command, ctx, [prog], top=True)

    def _command(self, command, ctx, path, top=False):
        title = " ".join(path)
        section = nodes.section(
            ids=[nodes.make_id("cli-" + "-".join(path))],
            names=[nodes.fully_normalize_name("cli " + title)],
        )
        section += nodes.title(text=title)
        for para in _paragraphs(command.help):
            section += nodes.paragraph(text=para)
        usage = command.get_usage(ctx).strip()
        section += nodes.literal_block(usage, usage)
        params = [p.get_help_record(ctx) for p in command.get_params(ctx)]
        params = [r for r in params if r]
        if params:
            dl = nodes.definition_list()
            for opts, help_text in params:
                item = nodes.definition_list_item()
                item += nodes.term("", "", nodes.literal(opts, opts))
                definition = nodes.definition()
                for para in _paragraphs(help_text) or [""]:
                    definition += nodes.paragraph(text=para)
                item += definition
                dl += item
            section += dl
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is None or getattr(sub, "hidden", False):
                    continue
                sub_ctx = type(ctx)(sub, info_name=name, parent=ctx)
                section += self._command(sub, sub_ctx, path + [name])
        return [section] if top else section


def setup(app):
    app.add_directive("typer-cli", TyperCLI)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
