"""How much an observation rests on, read from its data and its words."""

import pytest

from textrules.evidence import Volume, evidence_volume, outweighs


@pytest.mark.parametrize(
    "text,data,volume",
    [
        ("小红书笔记曝光与百度品牌词搜索量无明显关联（样本30）", None, {Volume.SAMPLE: 30}),
        ("实拍视频比CG视频CTR低（样本1.2万曝光）", None, {Volume.SAMPLE: 12_000}),
        ("button copy lifted bookings, 52k impressions", None, {Volume.SAMPLE: 52_000}),
        ("每周二晚转化率最高（观察3周）", None, {Volume.CYCLES: 3}),
        ("近3天付费率较基线下降60%", None, {Volume.DAYS: 3}),
        # The structured data comes first; a window such as "7d" is days.
        ("over 14 days CTR fell", {"observation_window": "7d"}, {Volume.DAYS: 7}),
        (
            "ROI 3.1",
            {"sample_size": 140, "cycles_observed": 10, "duration_days": 14},
            {Volume.SAMPLE: 140, Volume.CYCLES: 10, Volume.DAYS: 14},
        ),
        ("ROI 3.1", {"sample_size": True}, {}),
    ],
)
def test_evidence_volume(text, data, volume):
    assert evidence_volume(text, data) == volume


def test_outweighs_needs_clearly_more_on_a_shared_measure_and_less_on_none():
    assert outweighs({Volume.SAMPLE: 140}, {Volume.SAMPLE: 30})
    assert not outweighs({Volume.SAMPLE: 40}, {Volume.SAMPLE: 30})  # not clearly more
    assert not outweighs({Volume.SAMPLE: 9_000}, {Volume.SAMPLE: 52_000})
    assert not outweighs({Volume.SAMPLE: 900, Volume.DAYS: 3}, {Volume.SAMPLE: 100, Volume.DAYS: 21})  # fewer days
    assert not outweighs({Volume.DAYS: 30}, {Volume.SAMPLE: 100})  # nothing shared to compare
