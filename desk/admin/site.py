"""The admin site's titles: the admin is the review desk."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

admin.site.site_header = _("Lingix Memory · review desk")
admin.site.site_title = _("Lingix Memory")
admin.site.index_title = _("Dashboard")
