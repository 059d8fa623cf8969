from django.conf import settings
from django.contrib import admin
from django.contrib.staticfiles.views import serve as serve_static
from django.urls import path, re_path
from django.views.generic import RedirectView

from api.api import api_urls, not_found
from api.mcp_server import mcp_view
from lingix_site.metrics_view import metrics

urlpatterns = [
    # The site's front door is the review desk (which sends a visitor to its login first).
    path("", RedirectView.as_view(url="/admin/", permanent=False), name="home"),
    path("admin/", admin.site.urls),
    path("metrics", metrics, name="metrics"),
    path("api/v1/", api_urls()),
    path("mcp", mcp_view, name="mcp"),  # Model Context Protocol, streamable HTTP (api/mcp_server.py)
    # Anything else under the API answers in JSON too, not with the HTML 404 page.
    re_path(r"^api/v1/(?P<rest>.*)$", not_found),
]

# `make run` is a single-process local service without a front web server, and DEBUG
# is off by default, so Django itself serves the admin and API-docs assets from the
# installed apps (the swagger bundle ships with django-ninja: no CDN is involved).
if not settings.DEBUG:
    urlpatterns += [
        re_path(rf"^{settings.STATIC_URL.lstrip('/')}(?P<path>.*)$", serve_static, {"insecure": True}),
    ]
