"""Train the pair model (textrules/claims/pair_model.py) on the train split of the labelled
claims set and write its weights to textrules/claims/pair_model.json.

    .venv/bin/python scripts/train_pair_model.py            # train, report, write the weights
    .venv/bin/python scripts/train_pair_model.py --check    # train, and fail if the shipped weights differ

Only pairs with `"split": "train"` are read: the test split stays frozen (tests/data/claims/README.md).
A pair is a relation pair, or a write case with a stored memory and a labelled relation; the
first labelled set (tests/data/funnel_cases.jsonl) adds its pairs, except its holdout batch. Each is
read as the funnel reads it: both claims, the wording, the bundled embedder's cosine and what the
claim rules say (governance/funnel/relation.py, without the model). The report gives the 10-fold
cross-validated accuracy on the train split, of the rules and of the model, so a change of
features can be judged without looking at the test split."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import setup_throwaway_django  # noqa: E402

CLAIMS = ROOT / "tests" / "data" / "claims"
FIRST_SET = ROOT / "tests" / "data" / "funnel_cases.jsonl"
# L2 penalty, steps and step size of the gradient descent: fixed, so training is repeatable.
PENALTY = 10.0
STEPS = 400
STEP_SIZE = 0.5
FOLDS = 10


def _text(proposal: dict[str, Any]) -> str:
    if "text" in proposal:
        return str(proposal["text"])
    if "messages" in proposal:
        return " ".join(m["content"] for m in proposal["messages"])
    return str(proposal.get("summary", ""))


def labelled_pairs() -> list[dict[str, Any]]:
    """Train-split pairs: {id, old, new, label} with the texts, advertisers and data of each side."""
    pairs = []
    for line in (CLAIMS / "relation_pairs.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["split"] == "train":
            pairs.append({"id": case["id"], "old": case["existing"], "new": case["new"], "label": case["relation"]})
    for line in (CLAIMS / "write_cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["split"] == "train" and case.get("existing") and case.get("relation"):
            pairs.append({"id": case["id"], "old": case["existing"], "new": case, "label": case["relation"]})
    for line in FIRST_SET.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case.get("batch") != "holdout" and case.get("existing") and case.get("relation"):
            pairs.append({"id": case["id"], "old": case["existing"], "new": case, "label": case["relation"]})
    return pairs


def read_features(pairs: list[dict[str, Any]]) -> list[dict[str, float]]:
    from governance.funnel.relation import relate
    from governance.knowledge.entities.selectors import subject_identity
    from lingix_config import config
    from memories.embeddings.passage_cache import embed_passages_cached
    from memories.embeddings.store import embedding_text
    from memories.models import Memory
    from textrules.claims import Wording, extract_claim
    from textrules.claims.pair_model import pair_features

    texts = [t for p in pairs for t in (p["old"]["content"], _text(p["new"]))]
    # Embedded as the funnel embeds them (governance/funnel/related.py): a stored memory with its
    # category, a proposal with its category or else its trigger type.
    embedded = []
    for p in pairs:
        proposal = p["new"]
        category = (proposal.get("data") or {}).get("category") or proposal.get("trigger") or proposal.get("event_type") or ""
        embedded.append(embedding_text(Memory(content=p["old"]["content"], category=p["old"].get("category") or "")))
        embedded.append(embedding_text(Memory(content=_text(proposal), category=str(category))))
    vectors = embed_passages_cached(embedded)
    rows = []
    for i, p in enumerate(pairs):
        old_text, new_text = texts[2 * i], texts[2 * i + 1]
        advertiser = p["new"].get("advertiser")
        new = extract_claim(new_text, advertiser=advertiser, data=p["new"].get("data"))
        old = extract_claim(old_text, advertiser=p["old"].get("advertiser"), data=p["old"].get("data"))
        cosine = float(vectors[2 * i] @ vectors[2 * i + 1])
        wording = Wording(old_text, new_text)
        found = relate(
            new,
            old,
            cosine=cosine,
            same_text=old_text == new_text,
            wording=wording,
            related_cosine=config().memory_related_cosine,
            identity=subject_identity(old_text=old_text, new_text=new_text, advertiser=advertiser),
        )
        rows.append(
            pair_features(
                new, old, wording=wording, cosine=cosine, rules=found.kind if found else "none", rules_facet=found.signal if found else ""
            )
        )
    return rows


def fit(x: Any, y: Any, classes: int) -> Any:
    """Multinomial logistic regression by plain gradient descent (x carries a bias column)."""
    import numpy as np

    weights = np.zeros((x.shape[1], classes))
    target = np.eye(classes)[y]
    for _ in range(STEPS):
        z = x @ weights
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        weights -= STEP_SIZE * (x.T @ (p - target) + PENALTY * weights) / len(x)
    return weights


def train() -> tuple[dict[str, Any], dict[str, float]]:
    import numpy as np

    from textrules.claims import RelationKind

    pairs = labelled_pairs()
    features = read_features(pairs)
    names = sorted(features[0])
    classes = [str(k) for k in RelationKind]
    raw = np.array([[f[n] for n in names] for f in features])
    y = np.array([classes.index(p["label"]) for p in pairs])
    mean, scale = raw.mean(axis=0), raw.std(axis=0)
    scale[scale < 1e-9] = 1.0
    x = np.c_[(raw - mean) / scale, np.ones(len(raw))]
    folds = np.arange(len(x)) % FOLDS
    right = 0
    for k in range(FOLDS):
        held = folds == k
        w = fit(x[~held], y[~held], len(classes))
        right += int(((x[held] @ w).argmax(axis=1) == y[held]).sum())
    rules_right = sum(f[f"rules:{p['label']}"] for f, p in zip(features, pairs, strict=True))
    weights = fit(x, y, len(classes))
    model = {
        "features": names,
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "classes": classes,
        "weights": [[round(float(v), 6) for v in row] for row in weights],
        "trained_on": sorted(p["id"] for p in pairs),
    }
    report = {"pairs": len(pairs), "rules_accuracy": rules_right / len(pairs), "model_cv_accuracy": right / len(pairs)}
    return model, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="train and compare with the shipped weights; write nothing")
    args = parser.parse_args()
    setup_throwaway_django("pair-model")
    from textrules.claims.pair_model import WEIGHTS_FILE

    model, report = train()
    print(
        f"{report['pairs']} train pairs; rules {report['rules_accuracy']:.1%}, "
        f"model {report['model_cv_accuracy']:.1%} ({FOLDS}-fold cross-validated)"
    )
    text = json.dumps(model, ensure_ascii=False) + "\n"
    if args.check:
        shipped = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        same = all(shipped[key] == model[key] for key in ("features", "classes", "trained_on"))
        numbers = [(shipped[key], model[key]) for key in ("mean", "scale")] + list(zip(shipped["weights"], model["weights"], strict=False))
        drift = max(abs(a - b) for old, new in numbers for a, b in zip(old, new, strict=True)) if same else float("inf")
        if drift > 1e-3:
            print(f"the shipped weights differ from a fresh training (largest weight drift {drift:.4f}): run without --check")
            return 1
        print("the shipped weights match a fresh training")
        return 0
    WEIGHTS_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
