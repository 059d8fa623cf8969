"""The category trees: one per advertiser plus the global one, shown as a tree of collapsed
<details> a reviewer opens level by level. Each node shows its counts, the abstracts of the
memories filed at that node itself (so a memory's abstract appears once in the tree, not again
on every ancestor) and a link to the memories under it. Read-only: the governed write keeps
the trees (governance.knowledge.organise), including the stored summary the API serves."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib import admin
from django.db.models import F, Window
from django.db.models.functions import RowNumber, Substr
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin, admin_link
from desk.admin.filters import AdvertiserFilter, labelled_filter
from desk.admin.list_cells import user_data
from memories.constants import Status
from memories.models import Category, Memory

# Abstracts shown per node: the most important memories filed at the node itself.
POINTS_PER_NODE = 5


@dataclass
class TreeNode:
    category: Category
    memories_url: str
    points: list[str] = field(default_factory=list)
    children: list[TreeNode] = field(default_factory=list)


def _level(depth: int | str) -> str:
    return gettext("level %(n)s") % {"n": int(depth) + 1}


def category_tree(nodes: list[Category]) -> list[TreeNode]:
    """The nodes as trees; a node whose parent is filtered out becomes a root."""
    by_id = {
        node.pk: TreeNode(node, reverse("admin:memories_memory_changelist") + "?" + urlencode({"category": node.pk})) for node in nodes
    }
    # The database picks each node's first few and cuts the text: a big tree does not bring
    # every memory's whole content into the page.
    rank = Window(RowNumber(), partition_by=F("category_node_id"), order_by=(F("importance").desc(), F("created_at").desc()))
    own = (
        Memory.objects.filter(category_node_id__in=list(by_id), status=Status.ACTIVE)
        .annotate(rank=rank, head=Substr("content", 1, 60))
        .filter(rank__lte=POINTS_PER_NODE)
        .order_by("category_node_id", "rank")
        .values_list("category_node_id", "abstract_line", "head")
    )
    for node_id, line, head in own:
        by_id[node_id].points.append(line or head)
    roots: list[TreeNode] = []
    for tree_node in by_id.values():
        parent_id = tree_node.category.parent_id
        parent = by_id.get(parent_id) if parent_id is not None else None
        (parent.children if parent is not None else roots).append(tree_node)
    return roots


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    change_list_template = "admin/memories/category/change_list.html"
    change_form_template = "admin/lingix/data_title_change_form.html"
    list_display = ("name", "advertiser", "memory_count")
    list_display_links = None
    list_filter = (AdvertiserFilter, labelled_filter("depth", _("tree level"), _level))
    search_fields = ("path", "summary")
    ordering = ("advertiser", "path")
    list_per_page = 2000
    fields = (
        "advertiser",
        "path_shown",
        "parent_shown",
        "depth",
        "memory_count",
        "semantic_count",
        "episodic_count",
        "summary_shown",
        "updated_at",
    )
    readonly_fields = fields

    # The path and the stored summary (the API's) are the tree's own words.
    @admin.display(description=_("path"))
    def path_shown(self, obj):
        return user_data(obj.path)

    @admin.display(description=_("parent"))
    def parent_shown(self, obj):
        return admin_link(obj.parent, user_data(obj.parent.path)) if obj.parent else "—"

    @admin.display(description=_("summary"))
    def summary_shown(self, obj):
        return user_data(obj.summary) if obj.summary else "—"

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        cl = getattr(response, "context_data", {}).get("cl")
        if cl is not None:
            response.context_data["tree"] = category_tree(list(cl.queryset.order_by("advertiser", "path")))
        return response
