"""The contract's deny list, enforced on the API's answers instead of in the tool definitions.

The server tools' ``blocked_domains`` would make the tool list (the first part of every cached
prefix) differ per contract, so no two documents of an update-all could share a cache entry.
Instead, every answer is filtered before the conversation keeps it: a web_search result on a
denied domain is removed, a web_fetch of a denied URL is replaced by the API's error block
(``url_not_allowed``), a citation of a denied URL is taken off its text. The model never continues from a denied page in a later request, the
system prompt still names the denied domains, and the ledger refuses any denied source a
proposal cites (``ledger.py``): a denied domain never reaches the document.
"""

from __future__ import annotations

from typing import Any

from oo_nb.format.vocab import domain_of, matched_pattern

__all__ = ["drop_denied"]


def _denied(url: Any, patterns: tuple[str, ...]) -> bool:
    return isinstance(url, str) and matched_pattern(domain_of(url), patterns) is not None


def _filtered(
    block: dict[str, Any], patterns: tuple[str, ...], dropped: set[str]
) -> dict[str, Any]:
    kind, content = block.get("type"), block.get("content")
    if kind == "web_search_tool_result" and isinstance(content, list):
        kept = []
        for result in content:
            url = result.get("url") if isinstance(result, dict) else None
            if _denied(url, patterns):
                dropped.add(str(url))
            else:
                kept.append(result)
        return block if len(kept) == len(content) else {**block, "content": kept}
    if kind == "web_fetch_tool_result" and isinstance(content, dict):
        url = content.get("url")
        if _denied(url, patterns):
            dropped.add(str(url))
            error = {"type": "web_fetch_tool_result_error", "error_code": "url_not_allowed"}
            return {**block, "content": error}
    citations = block.get("citations")
    if kind == "text" and isinstance(citations, list):  # a citation of a dropped result goes too
        kept_citations = [
            c for c in citations if not (isinstance(c, dict) and _denied(c.get("url"), patterns))
        ]
        if len(kept_citations) < len(citations):
            dropped.update(
                str(c.get("url"))
                for c in citations
                if isinstance(c, dict) and c not in kept_citations
            )
            return {**block, "citations": kept_citations or None}
    return block


def drop_denied(
    blocks: list[dict[str, Any]], patterns: list[str] | tuple[str, ...]
) -> tuple[list[dict[str, Any]], set[str]]:
    """``blocks`` without the results from denied domains (``patterns`` as
    ``vocab.domain_patterns`` gives them), and the URLs dropped."""
    dropped: set[str] = set()
    if not patterns:
        return blocks, dropped
    frozen = tuple(patterns)
    return [_filtered(b, frozen, dropped) for b in blocks], dropped
