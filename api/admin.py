"""API tokens in the admin. Creating one goes through the service and shows the secret on
a page of its own, once; it is never stored, put in a message or logged."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from api.models import ApiToken
from api.services import TOKEN_NAME_RE, api_token_create, api_token_revoke, clean_advertisers
from memories.exceptions import DomainError


class ApiTokenCreateForm(forms.ModelForm):
    advertisers_text = forms.CharField(
        label=_("advertisers"), required=False, help_text=_("Comma-separated, e.g. brand_A,brand_B. Leave empty with 'all advertisers'.")
    )

    class Meta:
        model = ApiToken
        fields = ["name", "all_advertisers", "can_review"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        advertisers = [a.strip() for a in (cleaned.get("advertisers_text") or "").split(",") if a.strip()]
        if cleaned.get("all_advertisers") and advertisers:
            raise ValidationError(_("Give either advertisers or all advertisers, not both."))
        if not cleaned.get("all_advertisers") and not advertisers:
            raise ValidationError(_("A token needs at least one advertiser, or all advertisers."))
        try:
            cleaned["advertisers_list"] = clean_advertisers(advertisers)
        except DomainError as exc:
            raise ValidationError(str(exc)) from exc
        return cleaned

    def clean_name(self) -> str:
        name = (self.cleaned_data.get("name") or "").strip()
        if not TOKEN_NAME_RE.match(name):
            raise ValidationError(_("Use 1-100 letters, digits, '_', '.' or '-'."))
        return name


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "prefix",
        "scope_display",
        "can_review",
        "trusted_sources",
        "revoked",
        "last_used_at",
        "created_by_shown",
        "created_at",
    ]
    list_filter = ["revoked", "all_advertisers", "can_review"]
    search_fields = ["name", "prefix"]
    actions = ["revoke_tokens"]
    readonly_fields = [
        "name",
        "prefix",
        "advertisers",
        "all_advertisers",
        "can_review",
        "revoked",
        "created_by_shown",
        "created_at",
        "last_used_at",
    ]

    # A person's account name, shown as recorded (the desk marks names as data, see desk.admin.list_cells).
    @admin.display(description=_("created by"), ordering="created_by_name")
    def created_by_shown(self, obj: ApiToken) -> str:
        return format_html("<span data-user-data>{}</span>", obj.created_by_name) if obj.created_by_name else "—"

    @admin.display(description=_("scope"))
    def scope_display(self, obj: ApiToken) -> str:
        return _("all advertisers") if obj.all_advertisers else ", ".join(obj.advertisers or [])

    def get_form(self, request: HttpRequest, obj: ApiToken | None = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ApiTokenCreateForm
            kwargs["fields"] = ["name", "advertisers_text", "all_advertisers", "can_review"]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str] | tuple[str, ...]:
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str] | tuple[str, ...]:
        if obj is None:
            return ["name", "advertisers_text", "all_advertisers", "can_review"]
        return self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        # Revoke instead: the row keeps attributing the events the token sent.
        return False

    def save_model(self, request: HttpRequest, obj: ApiToken, form: forms.ModelForm, change: bool) -> None:
        if change:
            return
        try:
            token, raw = api_token_create(
                name=form.cleaned_data["name"],
                advertisers=form.cleaned_data["advertisers_list"],
                all_advertisers=form.cleaned_data["all_advertisers"],
                can_review=form.cleaned_data["can_review"],
                created_by=request.user,
            )
        except DomainError as exc:
            raise ValidationError(str(exc)) from exc
        obj.__dict__.update({k: v for k, v in token.__dict__.items() if not k.startswith("_")})
        obj._state.adding = False
        obj._shown_once = raw

    def response_add(self, request: HttpRequest, obj: ApiToken, post_url_continue: str | None = None) -> HttpResponse:
        raw = getattr(obj, "_shown_once", None)
        if raw is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "token": obj,
            "raw_token": raw,
            "title": _("API token created"),
        }
        response = TemplateResponse(request, "admin/api/apitoken/token_created.html", context)
        response["Cache-Control"] = "no-store"
        return response

    @admin.action(description=_("Revoke selected tokens"))
    def revoke_tokens(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = 0
        for token in queryset.filter(revoked=False):
            api_token_revoke(token=token, actor=request.user.get_username())
            count += 1
        messages.success(request, _("%(n)d token(s) revoked.") % {"n": count})
