"""The funnel's shared vocabulary: cue patterns (Chinese and English), the typed data of
each trigger type, the value criteria, and how two statements relate. Providers and
funnel stages both read it; it reads neither."""
