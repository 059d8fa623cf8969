"""The hard layer rules in words, for the layer-policy page."""

from django.utils.translation import gettext_lazy as _

from memories.constants import Layer

# Shown beside the tunable fields so an operator sees what the form cannot change. The
# rules themselves live in governance.write.hard_rules and are enforced by governance.write.memory;
# this is their translated explanation, not their definition.
HARD_RULES = {
    Layer.L1: [
        _("Only authoritative sources write here (a human operator, a rule update); anything else is parked for review."),
        _("Never overwritten automatically: a contradiction always goes to a person."),
        _("Agent inference may not write L1."),
    ],
    Layer.L2: [
        _("Needs a source and conditions of validity."),
        _("Agent inference may not write L2."),
        _("Assistant suggestions without a user confirmation are rejected."),
    ],
    Layer.L3: [
        _("Needs a tool or system source and an observation time."),
        _("Always expires: a TTL is set at write time."),
    ],
    Layer.L4: [
        _("Never written from outside: only controlled promotion of mature, validated L2 memories."),
    ],
}
