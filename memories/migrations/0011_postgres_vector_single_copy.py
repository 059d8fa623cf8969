"""PostgreSQL keeps each vector once: in pgvector's `embedding_vec`, with `embedding` (the
float32 bytes SQLite reads) left NULL. The bytes doubled the row (1,676 of 3,736 bytes at
384 dimensions) and made every exact scan read 1.8 times as much
(docs/benchmarks/scale-out.md).

The write path (memories.embeddings.store.memory_store_vectors) sets `embedding_vec`
directly. The trigger stays for any writer that still sends bytes: it converts them and
clears them. A NULL written to `embedding` no longer clears the vector, since every full
save() of a loaded row writes that NULL back. Existing rows: the vector was already kept
in step by the trigger of 0004, so the bytes are simply cleared (rows with bytes and no
vector, which should not exist, are converted first). The space returns to the operating
system after a VACUUM FULL (or pg_repack); a plain VACUUM lets new rows reuse it.
On SQLite this migration does nothing."""

from django.db import migrations

VECTOR_TRIGGER_ONE_COPY = """CREATE OR REPLACE FUNCTION memories_memory_vec() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        IF NEW.embedding IS NOT NULL THEN
            NEW.embedding_vec := lingix_f32le_to_vector(NEW.embedding);
            NEW.embedding := NULL;
        END IF;
        RETURN NEW;
    END
    $fn$"""

# 0004's function: the bytes kept, and mirrored into the vector column.
VECTOR_TRIGGER_TWO_COPIES = """CREATE OR REPLACE FUNCTION memories_memory_vec() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        IF NEW.embedding IS NOT NULL THEN
            NEW.embedding_vec := lingix_f32le_to_vector(NEW.embedding);
        ELSIF TG_OP = 'UPDATE' THEN
            NEW.embedding_vec := NULL;
        END IF;
        RETURN NEW;
    END
    $fn$"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(VECTOR_TRIGGER_ONE_COPY)
    # Through the new trigger: converted, then cleared.
    schema_editor.execute("UPDATE memories_memory SET embedding = embedding WHERE embedding IS NOT NULL AND embedding_vec IS NULL")
    # The vector is there already; the trigger sees a NULL and leaves it.
    schema_editor.execute("UPDATE memories_memory SET embedding = NULL WHERE embedding IS NOT NULL")


def backward(apps, schema_editor):
    """Puts the bytes back beside the vector (written from Python: pgvector has no cast to
    bytea), then 0004's trigger."""
    if schema_editor.connection.vendor != "postgresql":
        return
    import numpy as np

    schema_editor.execute(
        """CREATE OR REPLACE FUNCTION memories_memory_vec() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            RETURN NEW;
        END
        $fn$"""
    )
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT id, embedding_vec::real[] FROM memories_memory WHERE embedding_vec IS NOT NULL AND embedding IS NULL")
        rows = cursor.fetchall()
        for memory_id, values in rows:
            cursor.execute(
                "UPDATE memories_memory SET embedding = %s WHERE id = %s",
                [np.asarray(values, dtype="<f4").tobytes(), memory_id],
            )
    schema_editor.execute(VECTOR_TRIGGER_TWO_COPIES)


class Migration(migrations.Migration):
    dependencies = [("memories", "0010_vector_deletion_log")]
    operations = [migrations.RunPython(forward, backward)]
