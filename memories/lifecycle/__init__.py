"""The lifecycle parts that need nothing above this app: retention scoring (a read), the
embedding backfill job, and short retrying write batches. The governed jobs that trace
what they change build on these one layer up."""
