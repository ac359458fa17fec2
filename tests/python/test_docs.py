"""The README is a user guide and docs/ holds the rest: every relative link of the pages resolves
(to a file, and to a heading where it names one), the README stays short, docs/README.md lists
every page, and each generated block lives in the one page its tool rewrites by default."""
import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from analysis import predictions  # noqa: E402
from tools.tpcds import calibrate, policies, uncertainty  # noqa: E402

DOCS = os.path.join(REPO, "docs")
README_MAX_LINES = 250
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def pages():
    """The hand-written and generated Markdown a reader follows links through."""
    found = [os.path.join(REPO, "README.md"), os.path.join(REPO, "scenarios", "README.md"),
             os.path.join(REPO, "analysis", "README.md")]
    found += sorted(os.path.join(DOCS, n) for n in os.listdir(DOCS) if n.endswith(".md"))
    return found


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces as -."""
    text = re.sub(r"[`*]", "", heading.strip().lstrip("#").strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        return {slug(line) for line in f if line.startswith("#")}


def links(path):
    """(line number, target) of every link that is not a web address."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for target in LINK.findall(line):
                if not re.match(r"[a-z]+:", target):
                    yield n, target


@pytest.mark.parametrize("page", pages(), ids=lambda p: os.path.relpath(p, REPO))
def test_every_relative_link_resolves(page):
    broken = []
    for n, target in links(page):
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
        if not os.path.exists(dest):
            broken.append("%d: %s (no such file)" % (n, target))
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            broken.append("%d: %s (no such heading)" % (n, target))
    assert not broken, "%s: %s" % (os.path.relpath(page, REPO), "; ".join(broken))


def test_slug_follows_github():
    assert slug("### The approximate network model") == "the-approximate-network-model"
    assert slug("## TPC-DS: each policy against the best fixed K") == "tpc-ds-each-policy-against-the-best-fixed-k"
    assert slug("# `exsim` results, v2") == "exsim-results-v2"


def test_readme_is_a_short_user_guide():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    assert text.count("\n") <= README_MAX_LINES, "README.md: keep it a user guide; move detail to docs/"
    for command in ("scripts/run-default.sh", "scripts/test.sh"):
        assert command in text
    assert "docs/README.md" in text


def test_the_docs_index_lists_every_page():
    with open(os.path.join(DOCS, "README.md"), encoding="utf-8") as f:
        listed = {os.path.normpath(os.path.join(DOCS, t.partition("#")[0])) for _, t in links(os.path.join(DOCS, "README.md"))}
    missing = [n for n in os.listdir(DOCS) if n.endswith(".md") and n != "README.md" and os.path.join(DOCS, n) not in listed]
    assert not missing, "docs/README.md does not list: " + ", ".join(sorted(missing))


@pytest.mark.parametrize("block, page", [
    (calibrate.README_BEGIN, "tpcds.md"),
    (predictions.markers("tpcds")[0], "tpcds.md"),
    (uncertainty.BEGIN, "tpcds.md"),
    ("<!-- %s:begin -->" % policies.BLOCK, "window_policies.md"),
    ("<!-- velox-q1-predictions:begin -->", "remote_scan.md"),
    ("<!-- velox-q1-adaptive:begin -->", "window_policies.md"),
])
def test_each_generated_block_is_in_the_page_its_tool_writes(block, page):
    where = []
    for path in pages():
        with open(path, encoding="utf-8") as f:
            if block in f.read():
                where.append(os.path.relpath(path, REPO))
    assert where == [os.path.join("docs", page)], "%s is in %s" % (block, where)
