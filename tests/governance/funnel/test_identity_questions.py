"""Identity questions in the relation (textrules/claims/identity.py, asked by
governance/funnel/related.py with governance/knowledge/entities/selectors.py): two statements
alike in every part but the name of their subject. An alias is one subject, two things the
store knows apart are two, and two names nobody has tied together go to a person, with a
reason that asks exactly that."""

import pytest

from governance.knowledge.entities.selectors import entity_names_known
from governance.models import Trace
from memories.entity_links import memory_entities_replace
from memories.entity_vocabulary import Mention
from memories.models import Memory
from textrules.claims import Facet, Identity, IdentityVerdict, RelationKind, extract_claim, relate_claims, subject_names, wording_overlap
from textrules.reasons import ReasonCode

FLAGSHIP = "用户说：brand_tea 旗舰店奶茶团购不降价"
JINGAN = "用户要求：brand_tea 静安寺那家店奶茶团购可以降到15元"


def _relate(old: str, new: str, known: dict[str, str] | None = None, *, with_names: bool = True):
    identity = Identity.between(old, new, known) if with_names else None
    return relate_claims(
        extract_claim(new, advertiser="brand_tea"),
        extract_claim(old, advertiser="brand_tea"),
        wording=wording_overlap(old, new),
        identity=identity,
    )


@pytest.mark.parametrize(
    "text,names",
    [
        ("brand_tea 旗舰店奶茶团购不降价", {"旗舰店"}),
        ("客户说：brand_tea 的那个红色礼盒可以打8折", {"红色礼盒"}),
        ("brand_3c_01 X5 Pro 可以参加双11降价", {"x5 pro"}),
        ("brand_tea 静安寺那家店奶茶团购可以降到15元", {"静安寺"}),
        ("adv_saas_01 wants 'Sales Cloud' ads to show the per-seat price", {"sales cloud"}),
        ("adv_saas_01: the core product's ads never mention price", {"core product"}),
        # A quoted sentence is a creative's wording, not a name; an advertiser id is no name.
        ("brand_edu 素材不要写“效果因人而异”以外的承诺", set()),
        ("brand_A 医药OTC日预算5000元", set()),
    ],
)
def test_the_names_a_statement_gives_its_subject(text, names):
    assert set(subject_names(text)) == names


def test_two_names_nobody_tied_together_are_a_question_for_a_person():
    found = _relate(FLAGSHIP, JINGAN)
    assert (found.kind, found.facet) == (RelationKind.AMBIGUOUS, Facet.IDENTITY), found
    assert (found.old, found.new) == ("旗舰店", "静安寺")
    # Without the names the relation reads as before: the store is a narrower scope, written beside.
    assert _relate(FLAGSHIP, JINGAN, with_names=False).kind != RelationKind.AMBIGUOUS


def test_an_alias_is_one_subject_and_two_known_things_are_two():
    old, new = "brand_tea 爆款礼盒不打折", "客户说：brand_tea 中秋礼盒可以打8折"
    assert Identity.between(old, new).verdict() == IdentityVerdict.UNKNOWN
    same = _relate(old, new, {"爆款礼盒": "category:中秋礼盒", "中秋礼盒": "category:中秋礼盒"})
    assert same.kind != RelationKind.AMBIGUOUS and same.facet != Facet.IDENTITY, same
    apart = _relate(old, new, {"爆款礼盒": "category:爆款礼盒", "中秋礼盒": "category:中秋礼盒"})
    assert (apart.kind, apart.facet) == (RelationKind.COMPATIBLE, Facet.IDENTITY), apart


def test_two_proper_names_are_two_things_and_a_region_is_an_open_question():
    # Two stores named by where they are: two stores, whatever else they share.
    stores = _relate("adv_local_01 徐汇店单店日预算800元", "用户要求：adv_local_01 浦东店单店日预算800元")
    assert stores.kind == RelationKind.COMPATIBLE, stores
    # A market inside the region a rule covers: an exception or a reversal, a person decides.
    region = _relate("adv_saas_02 海外线索投放暂停", "客户说：adv_saas_02 新加坡市场的线索广告继续投")
    assert (region.kind, region.facet) == (RelationKind.AMBIGUOUS, Facet.IDENTITY), region


def test_a_pair_told_apart_by_another_part_raises_no_question():
    # Different levers: two statements whatever the names mean.
    found = _relate("brand_tea 爆款礼盒日预算3000元", "brand_tea 中秋礼盒素材用真人试吃")
    assert found.kind == RelationKind.COMPATIBLE and found.facet != Facet.IDENTITY, found


def test_a_proper_name_beside_a_known_thing_is_still_a_question():
    """Two things apart only on the same footing: the store's entity (which untrusted content
    may have named) says nothing about a model code it has never heard of."""
    old, new = "旗舰机出价上限3元", "X5 Pro 出价上限2元"
    assert Identity.between(old, new, {"旗舰机": "category:旗舰机"}).verdict() == IdentityVerdict.UNKNOWN
    assert Identity.between(old, new, {"旗舰机": "category:旗舰机", "x5 pro": "plan:X5 Pro"}).verdict() == IdentityVerdict.DIFFERENT


pytestmark = pytest.mark.django_db


def test_the_store_knows_vocabulary_aliases_and_its_own_entities_in_scope(ingest):
    assert entity_names_known(names=["巨量引擎", "抖音"], advertiser=None) == {
        "巨量引擎": "channel:抖音信息流",
        "抖音": "channel:抖音信息流",
    }
    mine = ingest("用户要求：brand_tea 中秋礼盒日预算3000元", source="user", advertiser="brand_tea")
    theirs = ingest("用户要求：brand_milk 周年礼盒日预算3000元", source="user", advertiser="brand_milk")
    memory_entities_replace(memory=Memory.objects.get(pk=mine.memory_id), links=[(Mention("category", "中秋礼盒"), "offline")], triples=[])
    memory_entities_replace(
        memory=Memory.objects.get(pk=theirs.memory_id), links=[(Mention("category", "周年礼盒"), "offline")], triples=[]
    )
    known = entity_names_known(names=["中秋礼盒", "周年礼盒", "红色礼盒"], advertiser="brand_tea")
    # Another advertiser's entity is not known here, and a name no memory links is not known at all.
    assert known == {"中秋礼盒": "category:中秋礼盒"}
    # Nor is one only archived memories name: the store no longer holds it.
    Memory.objects.filter(pk=mine.memory_id).update(status="archived")
    assert entity_names_known(names=["中秋礼盒"], advertiser="brand_tea") == {}


def test_an_unknown_name_parks_the_proposal_with_the_identity_question(ingest):
    old = ingest(FLAGSHIP, source="user", advertiser="brand_tea")
    new = ingest(JINGAN, source="user", advertiser="brand_tea")
    assert old.action == "WRITE", old.reasons
    assert new.action == "PENDING_REVIEW", new.reasons
    assert "旗舰店 → 静安寺" in new.reasons[0] and "under another name" in new.reasons[0]
    conflict = Trace.objects.get(event_id=new.event_id, stage="conflict")
    assert (conflict.scores["relation"], conflict.scores["signal"]) == ("ambiguous", "identity")
    assert conflict.reason_codes[0]["code"] == ReasonCode.IDENTITY_UNCLEAR
    assert Memory.objects.get(pk=old.memory_id).status == "active"


def test_names_the_store_holds_apart_are_written_beside(ingest):
    gift = ingest("用户要求：brand_tea 爆款礼盒出价不超过2元", source="user", advertiser="brand_tea")
    other = ingest("用户要求：brand_tea 中秋礼盒日预算3000元", source="user", advertiser="brand_tea")
    assert gift.action == other.action == "WRITE", other.reasons
    for decision, name in ((gift, "爆款礼盒"), (other, "中秋礼盒")):
        memory_entities_replace(
            memory=Memory.objects.get(pk=decision.memory_id), links=[(Mention("category", name), "offline")], triples=[]
        )
    # 红色礼盒 is no entity of brand_tea's: it may be the 爆款礼盒, so the bid cap is not changed beside it.
    unsure = ingest("用户要求：brand_tea 红色礼盒出价上限改为3元", source="user", advertiser="brand_tea")
    assert unsure.action == "PENDING_REVIEW" and "爆款礼盒 → 红色礼盒" in unsure.reasons[0], unsure.reasons
    # 中秋礼盒 is: another gift box, whose bid cap is its own.
    known = ingest("用户要求：brand_tea 中秋礼盒出价上限3元", source="user", advertiser="brand_tea")
    assert known.action == "WRITE", known.reasons
    related = {r["id"]: r for r in Trace.objects.get(event_id=known.event_id, stage="conflict").scores["related"]}
    assert (related[gift.memory_id]["relation"], related[gift.memory_id]["signal"]) == ("compatible", "identity")
    assert Memory.objects.get(pk=gift.memory_id).status == "active"


def test_an_l1_rule_is_never_changed_through_an_unknown_name(ingest):
    rule = ingest("合规部规定：brand_tea 旗舰店奶茶广告不得出现“第一”字样", source="human", layer="L1", advertiser="brand_tea")
    other = ingest("合规部规定：brand_tea 静安寺那家店奶茶广告可以出现“第一”字样", source="human", layer="L1", advertiser="brand_tea")
    assert rule.action == "WRITE", rule.reasons
    assert other.action == "PENDING_REVIEW" and "旗舰店 → 静安寺" in other.reasons[0], other.reasons
    assert Memory.objects.get(pk=rule.memory_id).status == "active"


def test_the_question_quotes_each_name_as_its_statement_wrote_it(ingest):
    # Compared in lower case, shown as written: the reviewer reads 'Sales Cloud', not "sales cloud".
    assert Identity.between("brand_3c_01 X5 Pro 不参加双11降价", "brand_3c_01 旗舰机可以参加双11降价").question() == ("X5 Pro", "旗舰机")
    english = Identity.between(
        "adv_saas_01: the core product's ads never mention price", "adv_saas_01 wants 'Sales Cloud' ads to show the per-seat price"
    )
    assert english.question() == ("core product", "Sales Cloud") and english.new == {"sales cloud"}
    old = ingest("用户要求：adv_saas_01 核心产品日预算3000元", source="user", advertiser="adv_saas_01")
    new = ingest("用户要求：adv_saas_01 'Sales Cloud' 日预算5000元", source="user", advertiser="adv_saas_01")
    assert old.action == "WRITE", old.reasons
    assert new.action == "PENDING_REVIEW" and "核心产品 → Sales Cloud" in new.reasons[0], new.reasons
    conflict = Trace.objects.get(event_id=new.event_id, stage="conflict")
    related = {r["id"]: r for r in conflict.scores["related"]}
    assert related[old.memory_id]["detail"] == "核心产品 → Sales Cloud"
