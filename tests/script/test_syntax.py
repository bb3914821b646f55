"""The script language: lines, values, errors with file:line:column, round trips."""

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twig.errors import ParseError
from twig.script.syntax import (
    MAX_MAGNITUDE,
    NAME,
    Call,
    Location,
    Name,
    format_call,
    parse_line,
    parse_script,
    printable_character,
)


def test_a_line_with_every_kind_of_value():
    call = parse_line('kid: move-node l_hand (0.3, -1, 2e-1) 4 seconds=0.5 hold=true '
                      'note="a \\"b\\"\\u00e9" &  # comment')
    assert call == Call("kid", "move-node",
                        (Name("l_hand"), (0.3, -1.0, 0.2), 4),
                        (("seconds", 0.5), ("hold", True), ("note", 'a "b"\u00e9')),
                        parallel=True)
    assert isinstance(call.args[2], int)


def test_blank_lines_comments_and_the_keep_going_marker():
    assert parse_line("") is None
    assert parse_line("   # just a comment") is None
    call = parse_line("- world: wait 2")
    assert call == Call("world", "wait", (2,), keep_going=True)
    assert parse_line('"my ball": where').target == "my ball"


def test_script_keeps_line_numbers():
    calls = parse_script("# intro\n\nworld: wait 1\n  ball: where\n", "demo.twig")
    assert [(c.method, c.where.line) for c in calls] == [("wait", 3), ("where", 4)]


@pytest.mark.parametrize(("line", "column", "expected"), [
    ("kid approach ball", 5, "':' after 'kid'"),
    ("kid: Approach", 6, "a command name"),
    ("kid: walk (1, 2)", 16, "','"),
    ('kid: say "unterminated', 23, 'a closing "'),
    ("kid: walk speed=1 2", 19, "positional values come before keywords"),
    ("kid: walk 1e999", 11, "a number from -1e+09 to 1e+09"),
    ("kid: walk 2e9", 11, "a number from -1e+09 to 1e+09"),
    ("kid: walk 1" + "0" * 4400, 11, "a number written in at most 40 characters"),
    ('kid: say "a\\ud800"', 12, "a printable character"),
    ('kid: say "a\tb"', 12, "a printable character"),
    ('kid: say "\\n"', 11, "an escape"),
    ("kid: walk 1 & 2", 15, "the end of the line after '&'"),
    ('kid: say "\\q"', 11, "an escape"),
    ("kid: walk a=1 a=2", 15, "each key once"),
    ("kid: walk ball)", 15, "a space between values"),
    ("kid: walk @", 11, "a value"),
])
def test_errors_name_file_line_column_and_what_was_expected(line, column, expected):
    with pytest.raises(ParseError) as e:
        parse_script(f"world: wait 1\n{line}", "office.twig")
    assert str(e.value).startswith(f"office.twig:2:{column}: expected ")
    assert expected in str(e.value)


names = st.from_regex(NAME, fullmatch=True).filter(lambda s: s not in ("true", "false"))
methods = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
numbers = st.floats(-MAX_MAGNITUDE, MAX_MAGNITUDE)
texts = st.text(st.characters(blacklist_categories=("Cs",)).filter(printable_character))
values = st.one_of(
    st.booleans(), st.integers(-int(MAX_MAGNITUDE), int(MAX_MAGNITUDE)), numbers, texts,
    names.map(Name), st.tuples(numbers, numbers, numbers))
calls = st.builds(
    Call, target=st.one_of(names, texts.filter(bool)), method=methods,
    args=st.lists(values, max_size=4).map(tuple),
    kwargs=st.dictionaries(keys, values, max_size=3).map(lambda d: tuple(d.items())),
    parallel=st.booleans(), keep_going=st.booleans())


@given(calls)
def test_generated_lines_round_trip(call):
    line = format_call(call)
    assert "\n" not in line
    assert parse_line(line) == call


@given(st.text())
def test_garbage_is_a_parse_error_or_a_call_never_another_exception(text):
    try:
        result = parse_line(text, Location("fuzz.twig", 7, 1))
    except ParseError as e:
        assert str(e).startswith("fuzz.twig:7:")
    else:
        assert result is None or isinstance(result, Call)


@given(st.binary())
def test_garbage_bytes_decoded_leniently_never_crash(data):
    with contextlib.suppress(ParseError):
        parse_line(data.decode("utf-8", "replace"))
