"""Discord's own checks on message bodies, answered as 4xx errors like the real API."""

from __future__ import annotations

from typing import Any

from .layout import check_legacy_layout, check_v2_message
from .messages import IS_COMPONENTS_V2, SELECT_TYPES, walk_components
from .values import check_values


class ApiError(Exception):
    """An error answer: HTTP status plus Discord's JSON {"message", "code"} body."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
        *,
        refusal: bool = True,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.refusal = refusal

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


def unknown(what: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {what}")


UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
MISSING_ACCESS = 50001
CANNOT_SEND_EMPTY = 50006
CANNOT_EDIT_OTHERS = 50005
MISSING_PERMISSIONS = 50013
INVALID_WEBHOOK_TOKEN = 50027
INVALID_FORM_BODY = 50035
ALREADY_ACKNOWLEDGED = 40060


class FormErrors:
    """Collects field errors in Discord's nested {"a": {"0": {"_errors": [...]}}} shape."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.tree: dict[str, Any] = {}
        self.flat: list[str] = []

    def add(self, path: str, code: str, message: str) -> None:
        full = f"{self.prefix}{path}" if self.prefix else path
        node = self.tree
        for part in full.split("."):
            if part != "_root":  # an error about the whole body sits at the top
                node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
        self.flat.append(f"{full}: {message}")

    def max_len(self, path: str, value: Any, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def raise_if_any(self) -> None:
        if self.flat:
            raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", self.tree)


def _embed_checks(err: FormErrors, embeds: list[dict[str, Any]]) -> None:
    if len(embeds) > 10:
        err.add("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        p = f"embeds.{i}"
        title = embed.get("title") or ""
        desc = embed.get("description") or ""
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        err.max_len(f"{p}.title", title, 256)
        err.max_len(f"{p}.description", desc, 4096)
        err.max_len(f"{p}.footer.text", footer, 2048)
        err.max_len(f"{p}.author.name", author, 256)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            err.add(f"{p}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        total += len(title) + len(desc) + len(footer) + len(author)
        for j, f in enumerate(fields):
            name, value = f.get("name"), f.get("value")
            if not name or not value:
                err.add(f"{p}.fields.{j}", "BASE_TYPE_REQUIRED", "This field is required")
                continue
            err.max_len(f"{p}.fields.{j}.name", name, 256)
            err.max_len(f"{p}.fields.{j}.value", value, 1024)
            total += len(name) + len(value)
    if total > 6000:
        err.add("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")


def _check_button(err: FormErrors, p: str, c: dict[str, Any]) -> None:
    style = c.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        err.add(f"{p}.style", "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6).")
    err.max_len(f"{p}.label", c.get("label"), 80)
    if style == 5:
        if not c.get("url"):
            err.add(f"{p}.url", "BASE_TYPE_REQUIRED", "This field is required")
        if c.get("custom_id"):
            err.add(
                f"{p}.custom_id",
                "COMPONENT_LINK_BUTTON_CUSTOM_ID",
                "A link button cannot have a custom_id",
            )
    elif style != 6 and "custom_id" not in c:
        err.add(f"{p}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
    if style != 6 and not c.get("label") and not c.get("emoji"):
        err.add(p, "COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A button must have a label or an emoji")


def _check_select(err: FormErrors, p: str, c: dict[str, Any]) -> None:
    err.max_len(f"{p}.placeholder", c.get("placeholder"), 150)
    options = c.get("options") or []
    if c.get("type") == 3:
        if not 1 <= len(options) <= 25:
            err.add(f"{p}.options", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
        values = set()
        for k, o in enumerate(options):
            err.max_len(f"{p}.options.{k}.label", o.get("label"), 100)
            err.max_len(f"{p}.options.{k}.value", o.get("value"), 100)
            err.max_len(f"{p}.options.{k}.description", o.get("description"), 100)
            if o.get("value") in values:
                err.add(
                    f"{p}.options.{k}.value",
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Select component option values must be unique",
                )
            values.add(o.get("value"))
    lo, hi = int(c.get("min_values", 1)), int(c.get("max_values", 1))
    if not 0 <= lo <= 25:
        err.add(f"{p}.min_values", "NUMBER_TYPE_MAX", "int value should be <= 25 and >= 0.")
    if not 1 <= hi <= 25 or (c.get("type") == 3 and options and hi > len(options)):
        err.add(f"{p}.max_values", "NUMBER_TYPE_MAX", "max_values is out of range.")
    if lo > hi:
        err.add(
            f"{p}.min_values", "SELECT_COMPONENT_MIN_VALUES_TOO_HIGH", "min_values > max_values"
        )


def _component_checks(err: FormErrors, components: list[Any], v2: bool) -> None:
    if not v2:
        check_legacy_layout(err, components)
    seen: set[str] = set()
    for c in walk_components(components):
        if c.get("type") == 2:
            _check_button(err, "components", c)
        elif c.get("type") in SELECT_TYPES:
            _check_select(err, "components", c)
        cid = c.get("custom_id")
        if cid is None:
            continue
        if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
            err.add(
                "components.custom_id",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        elif cid in seen:
            err.add(
                "components.custom_id",
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(cid)


MAX_FILES = 10
MAX_DESCRIPTION = 1024
REQUEST_UPLOAD_LIMIT = 25 * 1024 * 1024
"""Bytes of files in one request, whatever the per-file limit."""
ENTITY_TOO_LARGE = 40005


def check_uploads(attachments: Any, limit: int) -> None:
    """Each new upload within ``limit`` bytes (the interaction's ``attachment_size_limit``,
    or the server's upload limit), all of them within 25 MiB: else 413 40005."""
    sizes = [a.get("size", 0) for a in attachments if isinstance(a, dict) and "url" in a] \
        if isinstance(attachments, list) else []
    if any(size > limit for size in sizes) or sum(sizes) > REQUEST_UPLOAD_LIMIT:
        raise ApiError(413, ENTITY_TOO_LARGE, "Request entity too large")


def _attachment_checks(err: FormErrors, attachments: Any, current: Any) -> None:
    """At most 10 files; each ``attachments[]`` entry an upload of this request (its ``id``
    the ``n`` of a ``files[n]`` part) or, in an edit, an attachment the message has; alt
    text (``description``) at most 1,024 characters."""
    if not isinstance(attachments, list):
        return
    if sum(1 for a in attachments if isinstance(a, dict) and "url" in a) > MAX_FILES:
        err.add("files", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_FILES} or fewer in length.")
    kept = {str(a.get("id")) for a in current.attachments} if current is not None else set()
    for i, a in enumerate(attachments):
        if not isinstance(a, dict):
            err.add(f"attachments.{i}", "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
            continue
        if "url" not in a and str(a.get("id")) not in kept:
            err.add(f"attachments.{i}.id", "ATTACHMENT_NOT_FOUND",
                    "No file part files[n] (or attachment of the message) has this id.")
        description = a.get("description")
        if description is not None and (
            not isinstance(description, str) or len(description) > MAX_DESCRIPTION
        ):
            err.add(f"attachments.{i}.description", "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_DESCRIPTION} or fewer in length.")


def check_message(
    body: Any,
    *,
    create: bool,
    prefix: str = "",
    current_flags: int = 0,
    current: Any = None,
    upload_limit: int | None = None,
) -> None:
    """Refuse a message create/edit body the way Discord would (raises ApiError).

    ``current`` (an edit): the stored message (its flags, content, embeds, attachments);
    ``upload_limit``: bytes per uploaded file (413 past it)."""
    if current is not None:
        current_flags |= current.flags
    if isinstance(body, dict) and upload_limit is not None:
        check_uploads(body.get("attachments"), upload_limit)
    if not isinstance(body, dict):
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body")
    err = FormErrors(prefix)
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        err.add("content", "BASE_TYPE_STRING", "Must be a string.")
    err.max_len("content", content, 2000)
    embeds = body.get("embeds") or []
    _embed_checks(err, embeds)
    raw_flags = body.get("flags")
    flags = (raw_flags if isinstance(raw_flags, int) else 0) | current_flags
    v2 = bool(flags & IS_COMPONENTS_V2)
    components = body.get("components") or []
    if v2:
        setting = current if current is not None and not current.flags & IS_COMPONENTS_V2 else None
        check_v2_message(err, body, components, setting)
    _component_checks(err, components, v2)
    _attachment_checks(err, body.get("attachments"), current)
    check_values(err, "", body)
    err.raise_if_any()
    if create and not (
        content
        or embeds
        or components
        or body.get("attachments")
        or body.get("sticker_ids")
        or body.get("poll")
    ):
        raise ApiError(400, CANNOT_SEND_EMPTY, "Cannot send an empty message")
