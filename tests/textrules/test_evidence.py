"""How much an observation rests on, read from the figures its data states and its words."""

import pytest

from textrules.evidence import Volume, evidence_volume, outweighs


@pytest.mark.parametrize(
    "text,volume",
    [
        ("小红书笔记曝光与百度品牌词搜索量无明显关联（样本30）", {Volume.SAMPLE: 30}),
        ("实拍视频比CG视频CTR低（样本1.2万曝光）", {Volume.SAMPLE: 12_000}),
        ("样本量：3000，转化率提升", {Volume.SAMPLE: 3000}),
        ("sample size: 3000, CTR up", {Volume.SAMPLE: 3000}),
        ("button copy lifted bookings, 52k impressions", {Volume.SAMPLE: 52_000}),
        ("每周二晚转化率最高（观察3周）", {Volume.CYCLES: 3}),
        ("held over the last 6 weeks", {Volume.CYCLES: 6}),
        ("近3天付费率较基线下降60%", {Volume.DAYS: 3}),
        # A baseline's window, a rate's base, a promotion's lead time, a policy and months are no observation.
        ("近3天付费率较前30天均值下降60%", {Volume.DAYS: 3}),
        ("每1000次曝光成本上涨20%", {}),
        ("cost per 1000 impressions rose 20%", {}),
        ("双11前7天加投，7天无理由退货", {}),
        ("30-day ROAS fell over 3 days", {Volume.DAYS: 3}),
        ("连续3个月转化最高", {}),
    ],
)
def test_evidence_volume_from_words(text, volume):
    assert evidence_volume(text) == volume


def test_the_stated_figures_come_before_the_words():
    assert evidence_volume("近3天 ROI 3.1（样本30）", sample=140, days=14) == {Volume.SAMPLE: 140, Volume.DAYS: 14}


def test_outweighs_needs_clearly_more_on_a_shared_measure_and_less_on_none():
    assert outweighs({Volume.SAMPLE: 140}, {Volume.SAMPLE: 30})
    assert not outweighs({Volume.SAMPLE: 40}, {Volume.SAMPLE: 30})  # not clearly more
    assert not outweighs({Volume.SAMPLE: 9_000}, {Volume.SAMPLE: 52_000})
    assert not outweighs({Volume.SAMPLE: 900, Volume.DAYS: 3}, {Volume.SAMPLE: 100, Volume.DAYS: 21})  # fewer days
    assert not outweighs({Volume.DAYS: 30}, {Volume.SAMPLE: 100})  # nothing shared to compare
