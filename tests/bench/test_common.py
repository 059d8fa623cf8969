from bench._common import RecallTally


def test_recall_tally_scores_each_question_and_averages_per_bucket():
    tally = RecallTally((1, 2), mrr=True, hit_at=2)
    first = tally.add(["预算", "出价", "素材"], {"出价", "素材"}, ("overall", "single"))
    assert first == {"recall@1": 0.0, "recall@2": 0.5, "mrr": 0.5, "hit@2": 1.0}
    tally.add([None, "ROI"], {"CPM"}, ("overall", "multi"))
    assert tally.summary("overall") == {"recall@1": 0.0, "recall@2": 0.25, "mrr": 0.25, "hit@2": 0.5, "questions": 2}
    assert tally.summary("multi")["questions"] == 1 and "temporal" not in tally
    assert tally.summary("temporal") == {"questions": 0}
    assert tally.buckets() == ["overall", "single", "multi"]
