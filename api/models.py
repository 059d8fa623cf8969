from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memories.constants import Source

# What any agent token may say produced its text; human and system need an operator's grant.
DEFAULT_SOURCES = frozenset({Source.USER, Source.ASSISTANT, Source.AGENT, Source.TOOL})
TRUSTED_SOURCES = frozenset({Source.HUMAN, Source.SYSTEM})


class ApiToken(models.Model):
    """A bearer token for the agent API. Only a hash of the secret is stored."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    prefix = models.CharField(_("prefix"), max_length=16, db_index=True, help_text=_("First characters, to tell tokens apart."))
    secret_hash = models.CharField(_("secret hash"), max_length=128, editable=False)
    advertisers = models.JSONField(_("advertisers"), default=list, blank=True)
    all_advertisers = models.BooleanField(_("all advertisers"), default=False)
    can_review = models.BooleanField(
        _("may decide reviews"),
        default=False,
        help_text=_("Approve or reject review items through the API. Off by default: an agent should not clear its own queue."),
    )
    can_erase = models.BooleanField(
        _("may erase memories"),
        default=False,
        help_text=_("DELETE /api/v1/memories/{id}: remove a memory's words for good, leaving a tombstone. Granted by an operator only."),
    )
    trusted_sources = models.JSONField(
        _("trusted sources"),
        default=list,
        blank=True,
        help_text=_("Sources beyond user/assistant/agent/tool this token may claim (human, system). Granted by an operator only."),
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by_name = models.CharField(_("created by"), max_length=150, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    revoked = models.BooleanField(_("revoked"), default=False)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def actor(self) -> str:
        """How this token appears on events and audit rows; also the idempotency namespace."""
        return f"token:{self.name}"

    @property
    def scope(self) -> tuple[str, ...] | None:
        """The advertisers this token may touch; None means every advertiser."""
        return None if self.all_advertisers else tuple(self.advertisers or ())

    @property
    def claimable_sources(self) -> frozenset[str]:
        return DEFAULT_SOURCES | frozenset(self.trusted_sources or ())

    def allows(self, advertiser: str | None) -> bool:
        """May this token write/read `advertiser`'s own memories (None: global ones)."""
        if self.all_advertisers:
            return True
        return advertiser is not None and advertiser in (self.advertisers or ())
