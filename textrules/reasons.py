"""Why a memory was written, refused, parked or changed: a code with parameters.

Every stage, review step and lifecycle job states its reasons as `Reason(code, params)`.
A reason is stored twice: its English text (what the API and the CLI return, so a caller
reads the same sentence as before codes existed) and its code with parameters (what the
desk renders in the reader's language). Each code has exactly one English and one Chinese
template, in TEMPLATES below.

Parameters are plain words a reviewer reads: memory ids, layers, names, quoted words,
settings an operator chose. Internal scores (confidences, evidence strengths, cosines,
negation counts) stay in the trace's `scores` and never enter a reason.

This package is below Django (the offline judge makes reasons too), so the labels of
Django choices (an attribution, a source, an action) come from the caller as `label`;
the words that are not choices (relation signals, the judge's consistency verdict) are
translated here, in WORDS."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ReasonCode(StrEnum):
    # Words someone else wrote: a model's own reasons, an outside error, a stored sentence
    # from before reasons had codes. Shown as written, in every language.
    TEXT = "text"

    # safety
    CREDENTIAL_REFUSED = "credential_refused"
    NO_CREDENTIALS = "no_credentials"
    PERSONAL_DATA_MASKED = "personal_data_masked"
    # provenance and hard layer rules
    ASSISTANT_UNCONFIRMED = "assistant_unconfirmed"
    PROVENANCE_PASSED = "provenance_passed"
    L4_PROMOTION_ONLY = "l4_promotion_only"
    L4_NOT_DERIVED = "l4_not_derived"
    L4_SOURCE_NOT_MATURE = "l4_source_not_mature"
    AGENT_INFERENCE_NEEDS_PERSON = "agent_inference_needs_person"
    L1_NEEDS_AUTHORITY = "l1_needs_authority"
    L3_NEEDS_OBSERVED_AT = "l3_needs_observed_at"
    # classification (the offline classifier's too)
    CLASSIFIED = "classified"
    NOT_CLASSIFIED = "not_classified"
    GREETING = "greeting"
    NO_TRIGGER_SIGNAL = "no_trigger_signal"
    PATTERNS_POINT_TO = "patterns_point_to"
    # guard rules
    HEDGED = "hedged"
    UNSETTLED_STANCE = "unsettled_stance"
    UNGROUNDED_NUMBERS = "ungrounded_numbers"
    INJECTION_PARKED = "injection_parked"
    GUARD_PASSED = "guard_passed"
    # the stored statement (textrules.statements)
    STATEMENT_COMPOSED = "statement_composed"
    STATEMENT_BY_MODEL = "statement_by_model"
    STATEMENT_MODEL_NOT_USED = "statement_model_not_used"
    QUESTION_TAIL_DROPPED = "question_tail_dropped"
    # value criteria
    VALUE_MET = "value_met"
    VALUE_NOT_MET = "value_not_met"
    # judge (the offline judge's too)
    GROUNDING_UNSUPPORTED = "grounding_unsupported"
    JUDGE_UNSURE = "judge_unsure"
    JUDGE_VERDICT = "judge_verdict"
    JUDGE_UNAVAILABLE = "judge_unavailable"
    NUMBERS_CONTRADICTED = "numbers_contradicted"
    WEAK_GROUNDING = "weak_grounding"
    INSTRUCTION_IN_CONTENT = "instruction_in_content"
    JUDGE_ASSESSMENT = "judge_assessment"
    # layer policy
    L2_NEEDS_CONDITIONS = "l2_needs_conditions"
    L3_NEEDS_OBSERVATION = "l3_needs_observation"
    L3_STALE = "l3_stale"
    L3_ACCEPTED = "l3_accepted"
    LAYER_ACCEPTS = "layer_accepts"
    # conflict
    CONFLICT_UNAVAILABLE = "conflict_unavailable"
    CONTRADICTS_L1 = "contradicts_l1"
    CONTRADICTS_OUT_OF_SCOPE = "contradicts_out_of_scope"
    CONTRADICTS_STRONGER = "contradicts_stronger"
    CONTRADICTS_NOT_STRONGER = "contradicts_not_stronger"
    DUPLICATE_OUT_OF_SCOPE = "duplicate_out_of_scope"
    DUPLICATE_REINFORCED = "duplicate_reinforced"
    SUBJECT_UNCLEAR = "subject_unclear"
    TOO_LITTLE_IN_COMMON = "too_little_in_common"
    FINDINGS_UNCOMPARED = "findings_uncompared"
    IDENTITY_UNCLEAR = "identity_unclear"
    RELATION_DISPUTED = "relation_disputed"
    RELATION_DOUBTED = "relation_doubted"
    REFINES = "refines"
    COMPATIBLE = "compatible"
    NO_CONFLICT = "no_conflict"
    # quality
    IMPORTANCE_LOW = "importance_low"
    IMPORTANCE = "importance"
    # sampled audit
    SAMPLED_AUDIT_OF = "sampled_audit_of"
    PICKED_FOR_AUDIT = "picked_for_audit"
    # review
    AUDIT_CONFIRMED = "audit_confirmed"
    APPROVED = "approved"
    ACKNOWLEDGED = "acknowledged"
    REJECTED = "rejected"
    NOTE = "note"
    AUTO_WRONG_ARCHIVED = "auto_wrong_archived"
    AUTO_WRONG = "auto_wrong"
    AUDIT_OVERTURNED = "audit_overturned"
    # admin edits
    ADMIN_EDITED = "admin_edited"
    ADMIN_STATUS = "admin_status"
    # lifecycle
    EXPIRED_AT = "expired_at"
    RUN_BY = "run_by"
    TIER_UP = "tier_up"
    TIER_DOWN = "tier_down"
    OVER_CAPACITY = "over_capacity"
    LOWEST_RETENTION = "lowest_retention"
    PROMOTION_MATURE = "promotion_mature"
    AUTO_PROMOTION = "auto_promotion"
    PROMOTION_WAITS = "promotion_waits"
    PROMOTION_ELIGIBLE = "promotion_eligible"
    NO_OPEN_CONFLICT = "no_open_conflict"
    TEMPLATE_WRITTEN = "template_written"
    PROMOTION_ITEM_OPENED = "promotion_item_opened"
    PROMOTION_PROPOSED = "promotion_proposed"
    # reflection
    STALE_MEMORY = "stale_memory"
    MEMORIES_CONTRADICT = "memories_contradict"
    SAME_PROPOSAL_REJECTED = "same_proposal_rejected"
    SAME_REASON_REJECTED = "same_reason_rejected"
    # knowledge: consolidation, suggestions, entities
    EPISODES_AGREE = "episodes_agree"
    CONSOLIDATION_NEEDS_PERSON = "consolidation_needs_person"
    CONSOLIDATION_PROPOSED = "consolidation_proposed"
    EPISODES_SHARE = "episodes_share"
    SUGGESTED = "suggested"
    SIGNAL_REPLACED = "signal_replaced"
    SIGNAL_ENDED = "signal_ended"
    ENTITIES_LINKED = "entities_linked"
    ENTITY_MODEL_FAILED = "entity_model_failed"


C = ReasonCode

# (English, Chinese) for every code; %(name)s is a parameter.
TEMPLATES: dict[ReasonCode, tuple[str, str]] = {
    C.TEXT: ("%(text)s", "%(text)s"),
    C.CREDENTIAL_REFUSED: (
        "content holds a credential (%(kinds)s); redacted before storage and refused",
        "内容含凭据（%(kinds)s）：存储前已遮盖，并拒绝写入",
    ),
    C.NO_CREDENTIALS: ("no credentials found", "未发现凭据"),
    C.PERSONAL_DATA_MASKED: ("personal data masked before storage (%(kinds)s)", "存储前已遮盖个人信息（%(kinds)s）"),
    C.ASSISTANT_UNCONFIRMED: (
        "assistant suggestion without a user confirmation signal ('%(quote)s')",
        "助手的建议，没有用户确认的信号（“%(quote)s”）",
    ),
    C.PROVENANCE_PASSED: ("attribution %(attribution)s; no provenance rule fired", "归属：%(attribution)s；未触发来源规则"),
    C.L4_PROMOTION_ONLY: (
        "L4 accepts no outside writes; only controlled promotion of mature L2 memories",
        "L4 不接受外部写入，只接受成熟 L2 记忆的受控晋升",
    ),
    C.L4_NOT_DERIVED: ("an L4 template must be derived from an existing L2 memory", "L4 模板必须来自一条已有的 L2 记忆"),
    C.L4_SOURCE_NOT_MATURE: (
        "the L2 source of this template is no longer mature (active, old, used and important enough)",
        "该模板的 L2 来源已不再成熟（须有效，且足够久、足够常用、足够重要）",
    ),
    C.AGENT_INFERENCE_NEEDS_PERSON: (
        "agent inference may not write %(layer)s without a person's approval",
        "智能体的推断未经人工批准不得写入 %(layer)s",
    ),
    C.L1_NEEDS_AUTHORITY: (
        "L1 accepts authoritative sources only (human, system); source is %(source)s: an operator must approve",
        "L1 只接受权威来源（人工、系统）；来源为%(source)s：须由运营人员批准",
    ),
    C.L3_NEEDS_OBSERVED_AT: ("L3 needs an observation time (observed_at)", "L3 需要观测时间（observed_at）"),
    C.CLASSIFIED: ("classified as %(trigger_type)s", "归类为%(trigger_type)s"),
    C.NOT_CLASSIFIED: ("could not classify with enough confidence", "无法有把握地归类"),
    C.GREETING: ("greeting or acknowledgement: nothing to remember", "问候或应答：没有需要记住的内容"),
    C.NO_TRIGGER_SIGNAL: (
        "no trigger type has enough signal (closest: %(trigger_type)s)",
        "没有哪种触发类型的信号足够（最接近：%(trigger_type)s）",
    ),
    C.PATTERNS_POINT_TO: ("patterns point to %(trigger_type)s", "文本特征指向%(trigger_type)s"),
    C.UNSETTLED_STANCE: (
        "a %(stance)s, not a settled statement: nothing to remember",
        "这是%(stance)s，不是确定的陈述：不予记忆",
    ),
    C.HEDGED: ("tentative statement, not a settled preference or fact ('%(quote)s')", "试探性的说法，不是确定的偏好或事实（“%(quote)s”）"),
    C.UNGROUNDED_NUMBERS: ("a number-backed conclusion with no grounding in the event's data", "用数字支撑的结论在事件数据中没有依据"),
    C.INJECTION_PARKED: (
        "injection: the text gives the system orders (%(quotes)s); a person decides",
        "疑似注入：文本在向系统下指令（%(quotes)s）；由人工决定",
    ),
    C.GUARD_PASSED: ("no deterministic rule fired (attribution %(attribution)s)", "未触发确定性规则（归属：%(attribution)s）"),
    C.STATEMENT_COMPOSED: (
        "stored as one statement composed from the turns (%(note)s)",
        "按对话整理成一句完整的陈述存储（%(note)s）",
    ),
    C.STATEMENT_BY_MODEL: ("stored in the model's wording, checked against the turns", "采用模型的措辞存储，已与对话逐项核对"),
    C.STATEMENT_MODEL_NOT_USED: (
        "the model's wording was not used (%(why)s); the composed statement is stored",
        "未采用模型的措辞（%(why)s），存储按规则整理的陈述",
    ),
    C.QUESTION_TAIL_DROPPED: (
        "the closing question is left out of the stored statement ('%(quote)s')",
        "存储的陈述去掉了结尾的提问（“%(quote)s”）",
    ),
    C.VALUE_MET: ("%(trigger_type)s: all 3 criteria met", "%(trigger_type)s：三项价值标准均满足"),
    C.VALUE_NOT_MET: ("%(trigger_type)s: criterion not met: %(criteria)s", "%(trigger_type)s：未满足价值标准：%(criteria)s"),
    C.GROUNDING_UNSUPPORTED: (
        "grounding unsupported: the claim's numbers are not in the event's data",
        "依据不成立：结论中的数字不在事件数据里",
    ),
    C.JUDGE_UNSURE: (
        "the judge is not confident enough to write %(layer)s without a review",
        "判断模型的把握不足以不经审核写入 %(layer)s",
    ),
    C.JUDGE_VERDICT: ("judge: %(action)s", "判断模型：%(action)s"),
    C.JUDGE_UNAVAILABLE: (
        "%(provider)s judge unavailable: %(why)s; parked, nothing written",
        "判断模型 %(provider)s 不可用（%(why)s）：已转人工审核，未写入",
    ),
    C.NUMBERS_CONTRADICTED: ("the numbers are contradicted by the event's own data", "数字与事件自身的数据相矛盾"),
    C.WEAK_GROUNDING: ("a quantified effect with only weak grounding", "量化的效果只有薄弱的依据"),
    C.INSTRUCTION_IN_CONTENT: (
        "content tries to instruct the memory system ('%(quote)s'); treated as data, sent to review",
        "内容试图指挥记忆系统（“%(quote)s”）：按数据处理，转人工审核",
    ),
    C.JUDGE_ASSESSMENT: (
        "attribution %(attribution)s, grounding %(grounding)s, %(consistency)s",
        "归属：%(attribution)s；依据：%(grounding)s；%(consistency)s",
    ),
    C.L2_NEEDS_CONDITIONS: (
        "L2 needs conditions of validity (scope, advertiser or 'when/对于…' clause)",
        "L2 需要适用条件（范围、广告主或“当/对于…”的说明）",
    ),
    C.L3_NEEDS_OBSERVATION: ("L3 needs a tool or system observation; source is %(source)s", "L3 需要工具或系统的观测；来源为%(source)s"),
    C.L3_STALE: (
        "observed %(observed)s, older than the %(hours)s h L3 TTL: already stale",
        "观测于 %(observed)s，已超过 L3 的 %(hours)s 小时有效期：已过时",
    ),
    C.L3_ACCEPTED: (
        "L3 observation from %(source)s; expires %(hours)s h after it was observed",
        "来自%(source)s的 L3 观测；观测后 %(hours)s 小时过期",
    ),
    C.LAYER_ACCEPTS: ("%(layer)s accepts %(attribution)s from %(source)s", "%(layer)s 接受来自%(source)s的%(attribution)s"),
    C.CONFLICT_UNAVAILABLE: (
        "conflict check unavailable (embedder: %(why)s); parked, nothing written",
        "冲突检查不可用（向量模型：%(why)s）：已转人工审核，未写入",
    ),
    C.CONTRADICTS_L1: (
        "contradicts L1 rule #%(id)s (%(signal)s); L1 is never overwritten automatically",
        "与 L1 规则 #%(id)s 矛盾（%(signal)s）；L1 从不自动覆盖",
    ),
    C.CONTRADICTS_OUT_OF_SCOPE: (
        "contradicts %(scope)s memory #%(id)s (%(signal)s), outside this proposal's scope: an operator decides",
        "与%(scope)s的记忆 #%(id)s 矛盾（%(signal)s），超出本提议的范围：由运营人员决定",
    ),
    C.CONTRADICTS_STRONGER: (
        "contradicts memory #%(id)s (%(signal)s) with stronger evidence: new version",
        "与记忆 #%(id)s 矛盾（%(signal)s），新证据更强：写入新版本",
    ),
    C.CONTRADICTS_NOT_STRONGER: (
        "contradicts memory #%(id)s (%(signal)s) without stronger evidence: a person decides",
        "与记忆 #%(id)s 矛盾（%(signal)s），新证据并不更强：由人工决定",
    ),
    C.DUPLICATE_OUT_OF_SCOPE: (
        "duplicate of %(scope)s memory #%(id)s (%(signal)s); not reinforced from another scope",
        "与%(scope)s的记忆 #%(id)s 重复（%(signal)s）；不从其他范围强化它",
    ),
    C.DUPLICATE_REINFORCED: (
        "duplicate of memory #%(id)s (%(signal)s); reinforced it instead",
        "与记忆 #%(id)s 重复（%(signal)s）：改为强化该记忆",
    ),
    C.SUBJECT_UNCLEAR: (
        "may contradict or repeat memory #%(id)s (%(signal)s), but one of them leaves open a part of the subject the other names (%(part)s): a person decides",
        "可能与记忆 #%(id)s 矛盾或重复（%(signal)s），但其中一方未限定另一方指明的主体部分（%(part)s）：由人工决定",
    ),
    C.TOO_LITTLE_IN_COMMON: (
        "may repeat memory #%(id)s, but the two are worded differently and nothing the rules read makes them one statement (no figure or value in common): a person decides",
        "可能与记忆 #%(id)s 重复，但两者措辞不同，规则读出的内容也不足以认定为同一陈述（没有共同的数字或取值）：由人工决定",
    ),
    C.FINDINGS_UNCOMPARED: (
        "may contradict memory #%(id)s: one judges a metric and the other reports how it moved (%(signal)s), which the rules cannot set side by side: a person decides",
        "可能与记忆 #%(id)s 矛盾：一方评判某项指标，另一方报告它的变化（%(signal)s），规则无法直接比较：由人工决定",
    ),
    C.IDENTITY_UNCLEAR: (
        "may be about the same thing as memory #%(id)s under another name (%(names)s); alike in every other part, and nothing known says whether the two names are one thing: a person decides",
        "可能与记忆 #%(id)s 说的是同一对象的另一个名称（%(names)s）；其余部分一致，且无已知信息说明两个名称是否同一对象：由人工决定",
    ),
    C.RELATION_DISPUTED: (
        "the model reads memory #%(id)s as %(model)s, the rules as %(rules)s (%(signal)s): a person decides",
        "模型判断与记忆 #%(id)s 的关系是“%(model)s”，规则判断是“%(rules)s”（%(signal)s）：由人工决定",
    ),
    C.RELATION_DOUBTED: (
        "the rules read memory #%(id)s as %(rules)s (%(signal)s); the pair model trained on labelled pairs reads %(learned)s, %(p)s sure: a person decides",
        "规则判断与记忆 #%(id)s 的关系是“%(rules)s”（%(signal)s）；基于标注样例训练的关系模型判断是“%(learned)s”（把握 %(p)s）：由人工决定",
    ),
    C.REFINES: (
        "refines memory #%(id)s (%(signal)s); written beside it",
        "细化了记忆 #%(id)s（%(signal)s）；与它并存写入",
    ),
    C.COMPATIBLE: (
        "compatible with memory #%(id)s (%(signal)s); no duplicate or contradiction",
        "与记忆 #%(id)s 相容（%(signal)s）；无重复或矛盾",
    ),
    C.NO_CONFLICT: ("no duplicate or contradiction in scope", "范围内无重复或矛盾"),
    C.IMPORTANCE_LOW: (
        "importance %(importance)s is below the %(layer)s review threshold %(threshold)s",
        "重要性 %(importance)s 低于 %(layer)s 的审核阈值 %(threshold)s",
    ),
    C.IMPORTANCE: ("importance %(importance)s/10", "重要性 %(importance)s/10"),
    C.SAMPLED_AUDIT_OF: ("sampled audit of an automatic %(action)s", "抽样审计一次自动的“%(action)s”"),
    C.PICKED_FOR_AUDIT: ("picked at random for a human audit", "随机抽中，交人工审计"),
    C.AUDIT_CONFIRMED: (
        "sampled audit: automatic %(action)s confirmed by reviewer %(reviewer)s",
        "抽样审计：审核人 %(reviewer)s 确认自动的“%(action)s”无误",
    ),
    C.APPROVED: (
        "approved by reviewer %(reviewer)s: %(action)s to %(layer)s as memory #%(id)s",
        "审核人 %(reviewer)s 已批准：%(action)s到 %(layer)s，成为记忆 #%(id)s",
    ),
    C.ACKNOWLEDGED: ("acknowledged by reviewer %(reviewer)s", "审核人 %(reviewer)s 已确认"),
    C.REJECTED: ("rejected by reviewer %(reviewer)s", "审核人 %(reviewer)s 已拒绝"),
    C.NOTE: ("note: %(note)s", "备注：%(note)s"),
    C.AUTO_WRONG_ARCHIVED: (
        "automatic %(action)s judged wrong: memory #%(id)s archived",
        "自动的“%(action)s”被判定有误：记忆 #%(id)s 已归档",
    ),
    C.AUTO_WRONG: ("automatic %(action)s judged wrong", "自动的“%(action)s”被判定有误"),
    C.AUDIT_OVERTURNED: (
        "sampled audit overturned by reviewer %(reviewer)s: automatic REJECT was wrong; %(action)s to %(layer)s as memory #%(id)s",
        "审核人 %(reviewer)s 推翻了抽样审计：自动拒绝有误；%(action)s到 %(layer)s，成为记忆 #%(id)s",
    ),
    C.ADMIN_EDITED: ("edited in the admin by %(actor)s", "%(actor)s 在后台编辑"),
    C.ADMIN_STATUS: ("%(from_status)s → %(to_status)s by %(actor)s", "%(actor)s 将状态从“%(from_status)s”改为“%(to_status)s”"),
    C.EXPIRED_AT: ("expires_at passed at %(when)s", "已于 %(when)s 到期"),
    C.RUN_BY: ("run by %(actor)s", "由 %(actor)s 运行"),
    C.TIER_UP: (
        "tier up by retention and access: %(from_tier)s → %(to_tier)s",
        "按留存与访问升档：%(from_tier)s → %(to_tier)s",
    ),
    C.TIER_DOWN: (
        "tier down by retention and access: %(from_tier)s → %(to_tier)s",
        "按留存与访问降档：%(from_tier)s → %(to_tier)s",
    ),
    C.OVER_CAPACITY: (
        "%(layer)s %(scope)s holds %(count)s active memories, capacity %(capacity)s",
        "%(layer)s %(scope)s 有 %(count)s 条有效记忆，容量为 %(capacity)s",
    ),
    C.LOWEST_RETENTION: ("lowest retention in scope", "范围内留存价值最低"),
    C.PROMOTION_MATURE: ("mature L2 memory meets the promotion policy", "成熟的 L2 记忆满足晋升策略"),
    C.AUTO_PROMOTION: ("auto-promotion", "自动晋升"),
    C.PROMOTION_WAITS: ("promotion waits for review", "晋升等待审核"),
    C.PROMOTION_ELIGIBLE: ("age, use, importance and grounding meet the L2 policy", "时长、使用、重要性和依据满足 L2 策略"),
    C.NO_OPEN_CONFLICT: ("no open conflict", "没有未决冲突"),
    C.TEMPLATE_WRITTEN: (
        "L4 template #%(id)s written from L2 #%(source_id)s (auto_promote)",
        "已由 L2 #%(source_id)s 写入 L4 模板 #%(id)s（自动晋升）",
    ),
    C.PROMOTION_ITEM_OPENED: ("review item #%(id)s opened (auto_promote is off)", "已开启审核项 #%(id)s（自动晋升未开启）"),
    C.PROMOTION_PROPOSED: ("L2 #%(id)s is mature: promote it to an L4 template?", "L2 #%(id)s 已成熟：晋升为 L4 模板吗？"),
    C.STALE_MEMORY: (
        "Stale %(layer)s memory #%(id)s: no recall for %(days)s days, importance %(importance)s. Archive it or confirm it still holds.",
        "%(layer)s 记忆 #%(id)s 已陈旧：%(days)s 天未被召回，重要性 %(importance)s。请归档，或确认它仍然成立。",
    ),
    C.MEMORIES_CONTRADICT: (
        "Memories #%(id)s and #%(other_id)s contradict each other (%(signal)s). Keep one, correct or archive the other.",
        "记忆 #%(id)s 与 #%(other_id)s 互相矛盾（%(signal)s）。保留一条，修正或归档另一条。",
    ),
    C.SAME_PROPOSAL_REJECTED: (
        "%(actor)s proposed the same rejected text %(count)s times: check the agent's prompt or capture rules.",
        "%(actor)s 把同一段被拒的文本提交了 %(count)s 次：请检查该智能体的提示词或采集规则。",
    ),
    C.SAME_REASON_REJECTED: (
        "%(actor)s was rejected %(count)s times for the same reason: %(reason)s",
        "%(actor)s 因同一原因被拒 %(count)s 次：%(reason)s",
    ),
    C.EPISODES_AGREE: ("%(count)s episodic memories in %(category)s agree", "%(category)s 中的 %(count)s 条情景记忆结论一致"),
    C.CONSOLIDATION_NEEDS_PERSON: ("a person approves every consolidation", "每次归纳都须人工批准"),
    C.CONSOLIDATION_PROPOSED: (
        "%(count)s episodes in %(category)s agree (%(outcome)s): keep what they show as a semantic memory?",
        "%(category)s 中的 %(count)s 条情景结论一致（%(outcome)s）：把它们说明的规律保存为一条语义记忆吗？",
    ),
    C.EPISODES_SHARE: ("episodes %(ids)s share scope, category and outcome", "情景 %(ids)s 的范围、类目和结果相同"),
    C.SUGGESTED: (
        "%(signal_kind)s signal: %(strategies)s strategies, %(templates)s templates apply",
        "%(signal_kind)s信号：适用 %(strategies)s 条策略、%(templates)s 个模板",
    ),
    C.SIGNAL_REPLACED: ("signal #%(id)s was replaced by #%(new_id)s", "信号 #%(id)s 已被 #%(new_id)s 取代"),
    C.SIGNAL_ENDED: ("their signal expired or changed; run by %(actor)s", "所依据的信号已过期或已变化；由 %(actor)s 运行"),
    C.ENTITIES_LINKED: ("%(entities)s entities, %(relations)s relations", "%(entities)s 个实体，%(relations)s 条关系"),
    C.ENTITY_MODEL_FAILED: (
        "the entity model failed (%(why)s); kept the offline links",
        "实体抽取模型失败（%(why)s）：保留离线抽取的关联",
    ),
}

# Parameter values that are words of their own, not Django choices: the relation signals
# of the conflict stage and reflection, the judge's consistency verdict, scopes, outcomes.
WORDS: dict[str, str] = {
    "global": "全局",
    "up": "上升",
    "down": "下降",
    "consistent": "一致",
    "duplicate": "重复",
    "contradiction": "矛盾",
    "refinement": "细化",
    "compatible": "相容",
    "ambiguous": "无法区分",
    "unknown": "未知",
    "same text": "文本相同",
    "different subject": "主体不同",
    "different channel": "渠道不同",
    "different audience segment": "人群不同",
    "different lever": "投放手段不同",
    "different metric": "指标不同",
    "different topic": "话题不同",
    "advertiser exception to a global memory": "广告主对全局记忆的例外",
    "antonym": "说法相反",
    "negation": "一方否定另一方",
    "direction": "方向相反",
    "numbers": "数字不同",
    "correction": "更正",
    "different value": "取值不同",
    "related, different scope": "相关，但适用范围不同",
    "near-identical, same polarity": "几乎相同，方向一致",
    "same slots and values": "要素与取值相同",
    "related, no conflicting signal": "相关，无冲突信号",
    # Stances (textrules.claims.Stance) and the parts of a claim (Facet) a reason names.
    "question": "提问",
    "hypothetical": "假设",
    "hedge": "推测",
    "advertiser": "广告主",
    "plan": "计划",
    "category": "类目",
    "channel": "渠道",
    "audience": "人群",
    "weekday": "星期",
    "time_slot": "时段",
    "event": "营销节点",
    "period": "周期",
    "place": "门店或地域",
    "identity": "名称是否同一对象",
    "lever": "投放手段",
    "metric": "指标",
    "value": "取值",
    "switch": "开关",
    "polarity": "肯定与否定",
    "condition": "条件",
    "text": "文本",
    "unread": "无共同可比内容",
}

# label(name, value) -> shown text, or None to show the value itself; the desk passes one
# that knows the Django choices (attribution, source, action, trigger type …).
Label = Callable[[str, Any], str | None]


@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, code: ReasonCode, **params: Any) -> Reason:
        return cls(code, params)

    @classmethod
    def text(cls, words: str) -> Reason:
        """Words someone else wrote (a model, an outside service), shown as written."""
        return cls(ReasonCode.TEXT, {"text": str(words)})

    @classmethod
    def from_json(cls, raw: Any) -> Reason | None:
        """A stored {"code", "params"}; None for anything else (an unknown code included)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("params", {}), dict):
            return None
        try:
            code = ReasonCode(raw.get("code"))
        except ValueError:
            return None
        return cls(code, dict(raw.get("params") or {}))

    def as_json(self) -> dict[str, Any]:
        return {"code": str(self.code), "params": {k: _plain(v) for k, v in self.params.items()}}

    def english(self) -> str:
        """The API's and the CLI's sentence: the English template, values as stored."""
        return render(self, "en")

    def __str__(self) -> str:
        return self.english()


def as_reason(value: Reason | str) -> Reason:
    """A Reason as it is; a string (a model's own words) as TEXT."""
    return value if isinstance(value, Reason) else Reason.text(value)


def stored_reasons(texts: Iterable[Any] | None, codes: Iterable[Any] | None) -> list[Reason]:
    """Reasons read back from a row's `reasons` (English) and `reason_codes` columns. A
    row written before codes existed, or whose codes do not line up, is its text."""
    texts, codes = list(texts or []), list(codes or [])
    if codes and len(codes) == len(texts):
        decoded = [Reason.from_json(c) for c in codes]
        return [r if r is not None else Reason.text(t) for r, t in zip(decoded, texts, strict=True)]
    return [Reason.text(str(t)) for t in texts]


class _Values(dict):
    # A parameter missing from an old row shows as a dash rather than failing the page.
    def __missing__(self, key: str) -> str:
        return "—"


def render(reason: Reason, language: str, label: Label | None = None) -> str:
    """The reason in `language` ("zh-hans", "en", …; Chinese for any zh*, English
    otherwise). Without `label`, choice values are shown as stored (the API's English)."""
    zh = (language or "").lower().startswith("zh")
    english, chinese = TEMPLATES[reason.code]
    values = _Values({name: _shown(name, value, zh=zh, language=language, label=label) for name, value in reason.params.items()})
    return (chinese if zh else english) % values


def _shown(name: str, value: Any, *, zh: bool, language: str, label: Label | None) -> str:
    if isinstance(value, Reason):
        return render(value, language, label)
    if isinstance(value, dict):
        nested = Reason.from_json(value)
        if nested is not None:
            return render(nested, language, label)
        if "en" in value or "zh" in value:
            # A wording carried with the value in both languages (a value criterion's name).
            return str(value.get("zh" if zh else "en") or value.get("en") or value.get("zh"))
    if isinstance(value, (list, tuple)):
        return ("、" if zh else ", ").join(_shown(name, v, zh=zh, language=language, label=label) for v in value)
    if label is not None:
        shown = label(name, value)
        if shown is not None:
            return shown
    if zh and isinstance(value, str) and value in WORDS:
        return WORDS[value]
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Reason):
        return value.as_json()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, StrEnum):
        return str(value)
    return value
