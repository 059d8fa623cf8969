from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DeskConfig(AppConfig):
    """The review and audit desk: Django admin pages over the governance and memories
    models. It has no models of its own; every change it makes goes through a service."""

    name = "desk"
    verbose_name = _("Review desk")
