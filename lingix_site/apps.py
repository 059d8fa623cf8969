from django.apps import AppConfig


class LingixSiteConfig(AppConfig):
    name = "lingix_site"
    verbose_name = "Lingix site"
