import os

from django.core.wsgi import get_wsgi_application

from lingix_site.envfile import load_env_file

load_env_file()

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lingix_site.settings")
application = get_wsgi_application()

from lingix_site.startup import require_provider_or_exit  # noqa: E402  (needs apps loaded)

require_provider_or_exit("web server")
