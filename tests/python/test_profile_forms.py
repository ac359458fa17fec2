"""Two more forms Impala's own tools write, read as the forms they render: impala-profile-tool's
pretty JSON of a log (one JSON array of the profiles, where the plain JSON has one object a line),
and the extended text of an aggregated profile (each summary statistic's merged line followed by
one row an instance, '[3]   - Name: value (Number of samples: n)', as Impala's testdata
impala_profile_log_tpcds_compute_stats_v2_extended.expected.txt prints them). Each is built here from
the shared test data's other rendering of the same queries, and must import to the same scenario."""
import json
import re

from test_impala_profile import PROFILES, TEXT_V2, import_file, needs_profiles

JSON_LINES = PROFILES / "impala_profile_log_tpcds_compute_stats.expected.json"


def same_but_where(a, pa, b, pb):
    """The two scenarios are the same but for where their queries were read: the file's path and
    name, and a text query's line."""
    def scrub(doc, path):
        text = json.dumps(doc, sort_keys=True).replace(str(path), "FILE").replace(path.stem, "NAME")
        text = text.replace(path.name, "NAME")
        return re.sub(r"FILE:\d+", "FILE", text)
    return scrub(a, pa) == scrub(b, pb)


@needs_profiles
def test_the_pretty_json_of_a_log_is_its_profiles(tmp_path):
    objs = [json.loads(line) for line in JSON_LINES.read_text().splitlines() if line.strip()]
    pretty = tmp_path / "log.pretty.json"
    pretty.write_text(json.dumps(objs, indent="\t"))
    assert len(objs) > 1
    assert same_but_where(import_file(JSON_LINES), JSON_LINES, import_file(pretty), pretty)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    from tools.impala_profile.decode import read_profiles
    from tools.impala_profile.tree import ProfileError
    try:
        read_profiles(str(empty))
        raise AssertionError("an empty array was read")
    except ProfileError as e:
        assert "an empty JSON array: no profile in it" in str(e)


@needs_profiles
def test_the_extended_text_of_an_aggregated_profile_reads_as_its_default_text(tmp_path):
    lines = TEXT_V2.read_text().splitlines(keepends=True)
    out, rows = [], 0
    for line in lines:
        out.append(line)
        m = re.match(r"^( *)- (\w+): (.*\(Number of samples: \d+\))\n$", line)
        if m:   # the merged line, then one row an instance at the fragment's indent
            indent = max(0, len(m.group(1)) - 3)
            for k in range(4):
                out.append(" " * indent + "[%d]   - %s: %s\n" % (k, m.group(2), m.group(3)))
                rows += 1
    extended = tmp_path / "extended.txt"
    extended.write_text("".join(out))
    assert rows > 20
    assert same_but_where(import_file(TEXT_V2), TEXT_V2, import_file(extended), extended)
