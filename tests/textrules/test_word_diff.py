"""textrules.word_diff: one alignment of jieba words that the desk marks up and
`memory show` lists."""

from textrules.word_diff import word_changes, word_diff

OLD = "brand_A 大促期间 ROI 低于 2.3 时出价下调 10%"
NEW = "brand_A 大促期间 ROI 低于 1.5 时出价下调 10%，仅限晚间"


def test_the_stretches_join_back_into_both_texts_spaces_included():
    diff = word_diff(OLD, NEW)
    assert "".join(s.old for s in diff.stretches) == OLD
    assert "".join(s.new for s in diff.stretches) == NEW
    assert all(s.old == s.new for s in diff.stretches if not s.changed)
    assert 0.5 < diff.ratio < 1.0


def test_a_changed_figure_is_one_change_and_the_listed_changes_come_from_the_same_alignment():
    changed = [(s.old, s.new) for s in word_diff(OLD, NEW).stretches if s.changed]
    assert changed[0] == ("2.3", "1.5")
    assert [c.as_dict() for c in word_changes(OLD, NEW)] == [{"removed": o.strip(), "added": n.strip()} for o, n in changed]


def test_equal_texts_and_a_change_of_spaces_only_list_nothing():
    assert word_diff("出价上调 5%", "出价上调 5%").ratio == 1.0
    assert word_changes("出价上调 5%", "出价上调 5%") == []
    assert word_changes("ROI 低于 2", "ROI  低于 2") == []
    assert any(s.changed for s in word_diff("ROI 低于 2", "ROI  低于 2").stretches)
