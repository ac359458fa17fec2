"""Files generated from one of the simulator's tables (the parameter table, the results field table):
Markdown tables filled between marker lines, and the command that writes the files when they differ
from what the table gives, or, to check, names them.

    text = generated_files.fill_tables(text, "fields", rows_by_section, section_table, "docs/results.md", "field")
    sys.exit(generated_files.main(__doc__, generated, REPO, "the parameter table", "tools/parameter_docs.py"))
"""

import argparse
import re
import sys

from common import atomic, exsim_runner
from common.tables import replace_block


def markers(kind, section):
    """The begin and end marker lines of a generated table: <!-- KIND:SECTION:begin --> ..."""
    return f"<!-- {kind}:{section}:begin -->", f"<!-- {kind}:{section}:end -->"


def marked_sections(text, kind):
    """The sections whose tables `text` marks, in order."""
    return re.findall(r"<!-- %s:([a-z_.]+):begin -->" % re.escape(kind), text)


def fill_tables(text, kind, rows, table, where, table_name):
    """`text` with each table marked <!-- KIND:SECTION:begin/end --> replaced by table(the rows of
    `rows` whose "section" is SECTION, in order); ValueError naming `where` and a section no row has."""
    rows_by_section = {}
    for row in rows:
        rows_by_section.setdefault(row["section"], []).append(row)
    for section in marked_sections(text, kind):
        if section not in rows_by_section:
            raise ValueError(f"{where}: {markers(kind, section)[0]}: the {table_name} has no section {section!r} "
                             f"(sections: {', '.join(rows_by_section)})")
        begin, end = markers(kind, section)
        text = replace_block(text, begin, end, table(rows_by_section[section]) + "\n")
    return text


def refresh(files, repo, table_name, command, check=False):
    """Write each file of `files` ({path: text}) whose text differs (check: write nothing, name each
    on stderr with `command`, which regenerates them); the exit status: 1 when checking found one."""
    stale = [path for path, text in files.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path in stale:
        rel = path.relative_to(repo)
        if check:
            print(f"{rel} differs from what {table_name} generates; regenerate with: {command}", file=sys.stderr)
        else:
            atomic.write_text(path, files[path])
            print(f"wrote {rel}", file=sys.stderr)
    return 1 if check and stale else 0


def main(doc, generated, repo, table_name, command, argv=None):
    """The command line of a generator: `generated(exsim)` gives {path: text}; writes them, or with
    --check names those that differ. Returns the exit status (2 when the simulator cannot answer)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exsim", default=exsim_runner.default_exsim(), help="the simulator (default: $EXSIM, else build/exsim)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each file that differs")
    args = ap.parse_args(argv)
    try:
        files = generated(args.exsim)
    except (exsim_runner.ExsimError, ValueError) as e:
        print(f"{command.rsplit('/', 1)[-1].removesuffix('.py')}: {e}", file=sys.stderr)
        return 2
    return refresh(files, repo, table_name, command, check=args.check)
