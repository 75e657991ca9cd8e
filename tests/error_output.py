"""What a command that refused its input printed: one `error:` line and no traceback."""


def one_error_line(capsys):
    """The one `error:` line on stderr (asserts there is exactly one, and no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]
