"""Settings from the environment and a ``.env`` file (every key is listed in ``.env.example``)."""

from __future__ import annotations

from typing import Literal

import discord
import yarl
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.common.shards import ShardPlan, parse_shard_ids


class Settings(BaseSettings):
    """What a server owner can configure; names are the environment variables."""

    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", case_sensitive=False, env_ignore_empty=True
    )

    discord_token: SecretStr | None = None
    lama_db: str = "lama.db"
    lama_dev_guild: int | None = None
    lama_ai_delay: float = Field(default=1.5, ge=0)
    lama_ai_workers: int = Field(default=1, ge=0, le=64)
    lama_seed: str | None = None
    # a player whose open hand shows their turn is pinged once this part of the turn time has
    # passed (bot/policies/timers.py); with no turn timer, after LAMA_PING_DELAY seconds
    lama_ping_after: float = Field(default=0.5, gt=0, le=1)
    lama_ping_delay: float = Field(default=60.0, ge=0)
    lama_discord_url: str | None = None
    lama_log_level: str = "INFO"
    # json: one object per line (bot/process/logs.py)
    lama_log_format: Literal["text", "json"] = "text"
    lama_guild_ready_timeout: float = Field(default=2.0, ge=0)
    lama_card_emojis: bool = True  # card faces as the application's emojis (cogs.card_emojis)
    # several processes (bot/cluster.py): the shards this one connects, and whether it syncs
    lama_shard_count: int | None = Field(default=None, ge=1)
    lama_shard_ids: str | None = None
    lama_sync_commands: bool = True
    # processes sharing the bot's token (the launcher's count): each gets its share of
    # Discord's global request limit (bot/process/budget.py)
    lama_processes: int = Field(default=1, ge=1)
    lama_identify_window: float = Field(default=5.0, ge=0)
    # privacy (docs/operations.md, Privacy duties): who members write to, what is kept how long
    lama_privacy_contact: str | None = None  # shown by /lama privacy
    lama_guild_grace_days: float = Field(default=30.0, ge=0)  # a server left: its data goes
    lama_game_retention_days: float | None = Field(default=None, gt=0)  # None: games kept
    # health and metrics over HTTP (bot/process/metrics.py), e.g. 127.0.0.1:9108; unset: off
    lama_metrics_addr: str | None = None

    @field_validator("lama_metrics_addr")
    @classmethod
    def _metrics_addr(cls, value: str | None) -> str | None:
        if value is not None:
            parse_addr(value)
        return value

    @field_validator("lama_shard_ids")
    @classmethod
    def _shard_ids(cls, value: str | None) -> str | None:
        if value is not None:
            parse_shard_ids(value)
        return value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        self.shard_plan  # noqa: B018 (raises ValueError when the ids do not fit the count)
        return self

    @property
    def shard_plan(self) -> ShardPlan:
        ids = parse_shard_ids(self.lama_shard_ids) if self.lama_shard_ids else None
        if ids is not None and self.lama_shard_count is None:
            raise ValueError("LAMA_SHARD_IDS needs LAMA_SHARD_COUNT")
        return ShardPlan(self.lama_shard_count, ids)

    @field_validator("lama_log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("use DEBUG, INFO, WARNING or ERROR")
        return level

    @property
    def token(self) -> str | None:
        """The bot token, or ``None`` when it is missing or blank."""
        if self.discord_token is None:
            return None
        value = self.discord_token.get_secret_value().strip()
        return value or None


class Unusable(RuntimeError):
    """A setting that validated but cannot be used at start (a port already taken)."""


def parse_addr(value: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:9108`` for IPv6); ValueError when it is not one."""
    host, sep, port = value.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError("use host:port, e.g. 127.0.0.1:9108")
    return host.strip("[]"), int(port)


def point_at(url: str) -> None:
    """Send REST and gateway traffic to a Discord-compatible server."""
    base = yarl.URL(url.rstrip("/"))
    discord.http.Route.BASE = str(base / "api" / "v10")
    scheme = "wss" if base.scheme == "https" else "ws"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = base.with_scheme(scheme) / "gateway"
