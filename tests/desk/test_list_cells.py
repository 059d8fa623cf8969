"""The hover title of a clamped cell is the words shown, escaped once."""

from django.utils.html import format_html

from desk.admin.list_cells import clamped, plain_text


def test_the_hover_title_of_desk_markup_is_its_words_escaped_once():
    cell = clamped(format_html("客户说 brand_A{}s <b>{}</b> 出价上调", "'", "10%"))
    assert 'title="客户说 brand_A&#x27;s 10% 出价上调"' in cell


def test_a_users_angle_brackets_are_words_not_tags():
    assert plain_text("ROI<2 时暂停，>3 时加价") == "ROI<2 时暂停，>3 时加价"
    assert 'title="ROI&lt;2 时暂停，&gt;3 时加价"' in clamped("ROI<2 时暂停，>3 时加价")
