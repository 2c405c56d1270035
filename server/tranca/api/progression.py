"""ProgressionService, and an app policy's progression figures: protobuf in, a use
case of ``services.progression.Progressions``, protobuf out. Nothing else happens
here."""

from __future__ import annotations

from dataclasses import replace

from ..services.progression import Achievement, Progressions, ProgressView, Rules, StakeTier
from ..v1 import progression_pb2 as pb
from ..v1 import progression_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc


def achievement_pb(a: Achievement) -> pb.AchievementDefinition:
    return pb.AchievementDefinition(id=a.id, title=a.title, counter=a.counter, target=a.target)


def rules_pb(r: Rules) -> pb.ProgressionRules:
    return pb.ProgressionRules(
        win_xp_points=r.win_xp_points,
        win_xp_express=r.win_xp_express,
        loss_xp=r.loss_xp,
        level_step=r.level_step,
        max_level=r.max_level,
        achievements=[achievement_pb(a) for a in r.achievements],
        stake_tiers=[pb.StakeTier(min_stake=t.min_stake, percent=t.percent) for t in r.stake_tiers],
        no_achievements=not r.achievements,
    )


def rules_from_pb(p: pb.ProgressionRules) -> Rules:
    """The figures set; each left at 0 (or empty) takes its default."""
    d = Rules()
    out = replace(
        d,
        win_xp_points=p.win_xp_points or d.win_xp_points,
        win_xp_express=p.win_xp_express or d.win_xp_express,
        loss_xp=p.loss_xp,
        level_step=p.level_step or d.level_step,
        max_level=p.max_level or d.max_level,
    )
    if p.no_achievements:
        out = replace(out, achievements=())
    elif p.achievements:
        out = replace(
            out,
            achievements=tuple(
                Achievement(a.id, a.title, a.counter, a.target) for a in p.achievements
            ),
        )
    if p.stake_tiers:
        out = replace(
            out, stake_tiers=tuple(StakeTier(t.min_stake, t.percent) for t in p.stake_tiers)
        )
    return out


def progression_pb(v: ProgressView) -> pb.GetProgressionResponse:
    return pb.GetProgressionResponse(
        player_id=v.player_id,
        xp=v.xp,
        level=v.level,
        level_xp=v.level_xp,
        next_level_xp=v.next_level_xp,
        achievements=[
            pb.AchievementProgress(
                achievement=achievement_pb(a.achievement),
                progress=a.progress,
                unlocked=a.unlocked_ms > 0,
                unlocked_at_ms=a.unlocked_ms,
            )
            for a in v.achievements
        ],
    )


class ProgressionService(pb_grpc.ProgressionServiceServicer):
    def __init__(self, progressions: Progressions) -> None:
        self.progressions = progressions

    @rpc("GetProgression")
    async def GetProgression(
        self, request: pb.GetProgressionRequest, context: Ctx
    ) -> pb.GetProgressionResponse:
        view = await self.progressions.get(credentials(context), request.player_id)
        return progression_pb(view)
