

def test_a_long_refused_entry_is_quoted_cut_with_an_ellipsis_and_its_length():
    """The error quotes 20 characters of a long entry, says it was cut and how long it is."""
    import pytest
    from runtime_core.diagnose.planner import from_list
    from runtime_core.errors import UsageError
    with pytest.raises(UsageError) as e:
        from_list("1" * 40, 512)
    assert "'11111111111111111111…' (40 characters) is above" in str(e.value)
