"""Layer policies: the tunable parameters of each layer, edited through an audited
service, shown beside the hard rules that no form can change."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from governance.models import AuditLog, LayerPolicy
from governance.write.admin_edits import layer_policy_update
from governance.write.hard_rules import hard_rules_for
from memories.constants import Layer


class LayerPolicyForm(forms.ModelForm):
    class Meta:
        model = LayerPolicy
        fields = LayerPolicy.TUNABLE_FIELDS

    def clean(self):
        data = super().clean()
        rate = data.get("sampled_audit_rate")
        if rate is not None and not 0 <= rate <= 1:
            self.add_error("sampled_audit_rate", gettext("A rate between 0 and 1."))
        if self.instance.layer == Layer.L3 and data.get("default_ttl_hours") in (None, 0):
            self.add_error("default_ttl_hours", gettext("L3 memories always expire; give a TTL of at least one hour."))
        return data


@admin.register(LayerPolicy)
class LayerPolicyAdmin(admin.ModelAdmin):
    form = LayerPolicyForm
    list_display = (
        "layer",
        "default_ttl_hours",
        "capacity_per_advertiser",
        "sampled_audit_rate",
        "review_importance_below",
        "review_confidence_below",
        "auto_promote",
        "updated_by",
        "updated_at",
    )
    readonly_fields = ("layer", "hard_rules", "updated_by", "updated_at", "recent_edits")
    fieldsets = (
        (None, {"fields": ("layer",)}),
        (_("Hard rules (in code, cannot be switched off)"), {"fields": ("hard_rules",)}),
        (_("Tunable"), {"fields": LayerPolicy.TUNABLE_FIELDS}),
        (_("Changes"), {"fields": ("updated_by", "updated_at", "recent_edits")}),
    )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("hard rules"))
    def hard_rules(self, obj):
        rules = [rule.label for rule in hard_rules_for(obj.layer)]
        return render_to_string("admin/governance/layerpolicy/hard_rules.html", {"rules": rules})

    @admin.display(description=_("recent edits"))
    def recent_edits(self, obj):
        entries = AuditLog.objects.filter(target_type=obj._meta.label_lower, target_id=str(obj.pk)).order_by("-created_at")[:10]
        return render_to_string("admin/governance/layerpolicy/recent_edits.html", {"entries": entries})

    def save_model(self, request, obj, form, change):
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        layer_policy_update(policy=LayerPolicy.objects.get(pk=obj.pk), user=request.user, changes=changes)
