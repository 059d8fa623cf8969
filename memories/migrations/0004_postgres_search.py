"""PostgreSQL search structures: a tsvector over the same CJK-aware tokens as SQLite's FTS5
index (computed by a plpgsql twin of memories.search.tokens), a GIN index on it, a
pgvector column and an HNSW cosine index for the bundled embedder's 384 dimensions.
On SQLite this migration does nothing."""

from django.db import migrations

HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

TOKENS_FUNCTION = rf"""
CREATE OR REPLACE FUNCTION lingix_fts_tokens(doc text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
    m text[];
    piece text;
    tokens text[] := '{{}}';
    i int;
BEGIN
    -- Spaces around Han runs, so a Latin word never swallows the Chinese next to it.
    FOR m IN SELECT regexp_matches(
        regexp_replace(coalesce(doc, ''), '([{HAN}]+)', ' \1 ', 'g'),
        '[{HAN}]+|[[:alnum:]]+(?:[.''][[:alnum:]]+)*', 'g')
    LOOP
        piece := m[1];
        IF piece ~ '^[{HAN}]+$' THEN
            IF char_length(piece) = 1 THEN
                tokens := tokens || piece;
            ELSE
                FOR i IN 1 .. char_length(piece) - 1 LOOP
                    tokens := tokens || substr(piece, i, 2);
                END LOOP;
            END IF;
        ELSE
            tokens := tokens || replace(replace(lower(piece), '.', '_'), '''', '');
        END IF;
    END LOOP;
    RETURN array_to_string(tokens, ' ');
END
$fn$;
"""

# pgvector's copy of the stored float32 bytes, kept by a trigger so every write path
# (services, the funnel, raw updates) leaves the HNSW column right.
VECTOR_FUNCTION = r"""
CREATE OR REPLACE FUNCTION lingix_f32le_to_vector(b bytea) RETURNS vector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT ('[' || string_agg(
        CASE
            WHEN e = 0 THEN ((1 - 2 * s) * m::float8 / 8388608 * 2 ^ (-126))::text
            ELSE ((1 - 2 * s) * (1 + m::float8 / 8388608) * 2 ^ (e - 127))::text
        END, ',' ORDER BY i) || ']')::vector
    FROM (
        SELECT i, (bits >> 31) & 1 AS s, (bits >> 23) & 255 AS e, bits & 8388607 AS m
        FROM (
            SELECT i, get_byte(b, i * 4)::bigint | (get_byte(b, i * 4 + 1)::bigint << 8)
                      | (get_byte(b, i * 4 + 2)::bigint << 16) | (get_byte(b, i * 4 + 3)::bigint << 24) AS bits
            FROM generate_series(0, length(b) / 4 - 1) AS i
        ) AS raw
    ) AS parts
$fn$;
"""

FORWARD = [
    TOKENS_FUNCTION,
    VECTOR_FUNCTION,
    "ALTER TABLE memories_memory ADD COLUMN search_tsv tsvector",
    "ALTER TABLE memories_memory ADD COLUMN embedding_vec vector",
    """CREATE OR REPLACE FUNCTION memories_memory_tsv() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        NEW.search_tsv := to_tsvector('english', lingix_fts_tokens(NEW.content));
        RETURN NEW;
    END
    $fn$""",
    """CREATE TRIGGER memories_memory_tsv BEFORE INSERT OR UPDATE OF content ON memories_memory
        FOR EACH ROW EXECUTE FUNCTION memories_memory_tsv()""",
    "UPDATE memories_memory SET search_tsv = to_tsvector('english', lingix_fts_tokens(content))",
    """CREATE OR REPLACE FUNCTION memories_memory_vec() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        IF NEW.embedding IS NOT NULL THEN
            NEW.embedding_vec := lingix_f32le_to_vector(NEW.embedding);
        ELSIF TG_OP = 'UPDATE' THEN
            NEW.embedding_vec := NULL;
        END IF;
        RETURN NEW;
    END
    $fn$""",
    """CREATE TRIGGER memories_memory_vec BEFORE INSERT OR UPDATE OF embedding ON memories_memory
        FOR EACH ROW EXECUTE FUNCTION memories_memory_vec()""",
    "UPDATE memories_memory SET embedding_vec = lingix_f32le_to_vector(embedding) WHERE embedding IS NOT NULL",
    "CREATE INDEX mem_search_tsv_gin ON memories_memory USING gin (search_tsv)",
    """CREATE INDEX mem_embedding_hnsw_384 ON memories_memory
        USING hnsw ((embedding_vec::vector(384)) vector_cosine_ops) WHERE embedding_dim = 384""",
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_vec ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_memory_vec()",
    "DROP FUNCTION IF EXISTS lingix_f32le_to_vector(bytea)",
    "DROP INDEX IF EXISTS mem_embedding_hnsw_384",
    "DROP INDEX IF EXISTS mem_search_tsv_gin",
    "DROP TRIGGER IF EXISTS memories_memory_tsv ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_memory_tsv()",
    "ALTER TABLE memories_memory DROP COLUMN IF EXISTS embedding_vec",
    "ALTER TABLE memories_memory DROP COLUMN IF EXISTS search_tsv",
    "DROP FUNCTION IF EXISTS lingix_fts_tokens(text)",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
        row = cursor.fetchone()
    if row is None:
        raise RuntimeError(
            "Lingix Memory on PostgreSQL needs the pgvector extension (0.5 or newer), and this server does not "
            "offer it. Install pgvector for your PostgreSQL (e.g. the postgresql-NN-pgvector package) and migrate again."
        )
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS vector")
    for statement in FORWARD:
        schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in BACKWARD:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("memories", "0003_schedules")]
    operations = [migrations.RunPython(forward, backward)]
