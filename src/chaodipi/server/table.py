"""A table at the server: one asyncio task reading one queue, so no two actions ever race.

Everything that changes a table goes through its queue as a command: a client's message,
a seat taken from the lobby, a bot's decision coming back from the process pool. Clocks
(the next card of the deal, a decision's deadline, a bot's turn, the pause between hands)
wake the same task. An accepted action is checked and applied by the engine
(:meth:`Hand.apply <chaodipi.hand.Hand.apply>`, atomic: a refused action changes nothing), and stored in one
transaction with the expected sequence number (:meth:`Store.append
<chaodipi.server.store.Store.append>`, batched with other tables' by the server's
:class:`~chaodipi.server.writer.Writer`) **before** any client hears of it; every message a
seat receives is built from :meth:`Hand.view(seat) <chaodipi.hand.Hand.view>` alone.

A table's lasting state is in the database: its rules and seed, its seats, each hand's
deal, the accepted actions and the current deadline. :meth:`Table.restore` rebuilds a table
from them after a restart and extends its deadline by the time the server was down.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from chaodipi.game import Game, GameEnd
from chaodipi.hand import Hand
from chaodipi.log import Action, ActionKind, IllegalActionError, Penalty
from chaodipi.outcome import HandResult
from chaodipi.phrases import say
from chaodipi.rules import RuleSet
from chaodipi.server import ledger, ratings
from chaodipi.server.autoplay import AutoPlay, BotDone
from chaodipi.server.bots import BotRunner
from chaodipi.server.chat import ChatLimiter, add_line, recent_lines
from chaodipi.server.clock import Clock, LoopClock
from chaodipi.server.config import ServerConfig, Stats
from chaodipi.server.messages import ChatLine, ErrorReply, Left, Pong, Seats, TableState, Update, Welcome
from chaodipi.server.protocol import (
    WATCHING,
    Act,
    Again,
    Auto,
    Chat,
    ClientMessage,
    Hello,
    Leave,
    Ping,
    ProtocolError,
    Ready,
    parse_client,
)
from chaodipi.server.seats import Peer, SeatState
from chaodipi.server.store import (
    Append,
    Fence,
    GameOutcome,
    NotOwnerError,
    ReservedSeat,
    SeatKind,
    StaleSequenceError,
    Store,
    StoredSeat,
    StoreUnavailable,
    TableInfo,
    TableStatus,
    game_seed,
    mark_time_up,
    outage_words,
    record_outcome,
    unavailable,
)
from chaodipi.server.writer import Writer
from chaodipi.view import SPECTATOR, TEAMS, Phase, View

__all__ = ["MAX_NAME", "GameListener", "Table", "TableError", "hash_token", "in_thread"]

log = logging.getLogger("chaodipi.server")
T = TypeVar("T")

#: The longest guest name.
MAX_NAME = 24
#: WebSocket close codes the server uses (4000–4999 are the application's).
CLOSE_LEFT = 4000  # the seat was left (this or another connection of the seat)
CLOSE_UNKNOWN_TOKEN = 4401
CLOSE_MOVED = 4409  # another server process runs the table now
CLOSE_TRY_AGAIN = 1013  # the table is moving between processes (or reloading, or out of reach): reconnect in a moment
CLOSE_NO_WATCHERS = 4403  # the table does not allow spectators
CLOSE_TOO_LARGE = 1009  # a message over the largest the protocol takes


#: What is told of a finished game (the table's id and the stored outcome), awaited by the table's owner process.
GameListener = Callable[[int, GameOutcome], Awaitable[None]]


class TableError(ValueError):
    """A lobby request the table refuses (a taken seat, a bad name, a game not over); the message says why."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


async def in_thread(executor: Executor, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a store call in the database thread(s), so the event loop never waits on the disk.

    A database that did not answer (:func:`~chaodipi.server.store.unavailable`: a lost or killed connection, a
    lock waited for too long) raises :class:`~chaodipi.server.store.StoreUnavailable` in words, logged in one
    line rather than with the driver's traceback (the lobby answers 503; a table reloads)."""
    try:
        return await asyncio.get_running_loop().run_in_executor(executor, lambda: fn(*args, **kwargs))
    except Exception as exc:
        if not unavailable(exc) or isinstance(exc, StoreUnavailable):
            raise
        log.warning("the database did not answer (%s)", outage_words(exc))
        raise StoreUnavailable(f"the database did not answer ({type(exc).__name__}): try again") from None


def hash_token(token: str) -> str:
    """What the database keeps of a resume token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


# -- commands: everything that changes a table arrives through its queue ---------------------------


@dataclass(frozen=True, slots=True)
class _Connect:
    peer: Peer
    hello: Hello


@dataclass(frozen=True, slots=True)
class _Message:
    peer: Peer
    message: ClientMessage
    arrived: float  # the event loop's clock when the message was read off the socket


@dataclass(frozen=True, slots=True)
class _Raw:
    """A client message as it came (checked for shape in the table's task, where the connection's seat is known)."""

    peer: Peer
    text: str
    arrived: float


@dataclass(frozen=True, slots=True)
class _Refuse:
    """A message refused for its shape: the error goes out in order with the replies to earlier ones."""

    peer: Peer
    error: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Disconnect:
    peer: Peer


@dataclass(frozen=True, slots=True)
class _Call:
    """A lobby request run in the table's task; its answer (or error) goes to ``future``."""

    fn: Callable[[], Any]
    future: asyncio.Future[Any]


@dataclass(frozen=True, slots=True)
class _Stop:
    pass


_Command = _Connect | _Message | _Raw | _Refuse | _Disconnect | _Call | BotDone | _Stop


@dataclass(frozen=True, slots=True)
class _Seen:
    """What one seat (or the spectators) is shown of the table at one change: made once for its connections."""

    game: dict[str, Any] | None
    deadline: dict[str, Any] | None
    view: View | None  # Hand.view(seat): the one source of what the seat is told
    json: dict[str, Any] | None  # the view's JSON without its events and rules


@dataclass(slots=True)
class _Replay:
    """A copy of the current hand and how many of its actions it has been given (spectators' delay)."""

    replica: Hand
    applied: int = 0


class Table(AutoPlay):
    """One table: its seats, its game, its clocks and its connections, run by one task (:meth:`run`)."""

    def __init__(
        self,
        info: TableInfo,
        seats: dict[int, StoredSeat],
        *,
        store: Store,
        db: Executor,
        bots: BotRunner,
        config: ServerConfig,
        stats: Stats | None = None,
        clock: Clock | None = None,
        writer: Writer | None = None,
        listeners: list[GameListener] | None = None,
    ) -> None:
        self.clock: Clock = clock or LoopClock()  # the table's one source of time (a fake one in tests)
        self.store = store
        self.db = db
        self.writer = writer or Writer(store, db)  # the accepted actions' appends (the server's: shared by its tables)
        self.bots = bots
        self.config = config
        self.queue: asyncio.Queue[_Command] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.moved = False  # another process took the table over (or it was lost: :meth:`_lost`)
        self.reloaded = False  # reloaded from the store in the current command (after an error)
        self.stats = stats or Stats()
        self.watchers: list[Peer] = []  # spectators' connections (seat SPECTATOR)
        self.chat_limiter = ChatLimiter(config.chat_limit)
        self._watched: _Replay | None = None  # the hand spectators see when kept behind
        # told of each finished game once it is stored (the server's list: tournament code registers there)
        self.listeners: list[GameListener] = listeners if listeners is not None else []
        self.listening: set[asyncio.Task[None]] = set()  # the listeners' calls under way
        self.reserved: dict[int, ReservedSeat] = {}  # an event's seats, read by restore()
        self.outcomes: list[GameOutcome] = []  # the finished games at this table (the match's), read by restore()
        self._ending: GameOutcome | None = None  # the outcome the action being stored writes (told once stored)
        self._load(info, seats)

    def _load(self, info: TableInfo, seats: dict[int, StoredSeat]) -> None:
        """Take the stored state (the game itself is rebuilt by :meth:`restore`)."""
        self.id = info.id
        self.info = info
        # the claim this process holds (the fencing token every write names); None: not claimed (tests)
        self.fence = Fence(info.owner, info.epoch) if info.owner is not None else None
        self.rules: RuleSet = info.rules
        self.seats: list[SeatState | None] = [None, None, None, None]
        for n, s in seats.items():
            self.seats[n] = SeatState.stored(s)
        self.game: Game | None = None
        self.game_number = info.game
        self.hand_number = info.hand_number
        self.seq = info.last_seq
        self.status = info.status
        self.deadline = None
        self.deal_due: float | None = None
        self.pause_due: float | None = None
        self.ready: set[int] = set()  # between hands: the players who said they are ready for the next
        self.bot_due: dict[int, tuple[float, tuple[Any, ...]]] = {}
        self.thinking: dict[int, tuple[Any, ...]] = {}
        self.asked_in_countdown: dict[int, int] = {}  # seat → the sequence number it was last asked at
        self.missed: dict[int, int] = {}  # seat → decisions it missed in a row (RULES §13: two, and 托管 stays on)
        self.hand_settled = True  # the current hand's result is applied to the game
        self.game_accounts: list[int | None] = [None] * 4  # who sat down when the game began (bots' accounts too)
        self.hand_accounts: list[int | None] = [None] * 4  # whose the current hand's credits are, seat by seat
        self.game_due: float | None = None  # when the game's time runs out on the clock (RULES §14.2)
        self.game_ends_at: datetime | None = info.game_ends_at  # … and on the wall clock (stored)

    # -- the task --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the table's task."""
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")

    async def stop(self) -> None:
        """Stop the task (what is stored stays; a restarted server carries on from it)."""
        if self.task is None:
            return
        self.queue.put_nowait(_Stop())
        try:
            await asyncio.wait_for(asyncio.shield(self.task), 5)
        except TimeoutError:
            self.task.cancel()
        self.task = None

    def submit(self, command: _Command) -> None:
        """Queue a command for the table's task."""
        self.queue.put_nowait(command)

    def _bot_done(self, done: BotDone) -> None:
        self.submit(done)

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (a coroutine function or a plain one) in the table's task and return its answer."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.submit(_Call(fn, future))
        return await future

    def connect(self, peer: Peer, hello: Hello) -> None:
        """A client said hello on ``peer``."""
        self.submit(_Connect(peer, hello))

    def message(self, peer: Peer, message: ClientMessage) -> None:
        """A client message on a connection that said hello."""
        self.submit(_Message(peer, message, self.clock.now()))

    def raw(self, peer: Peer, text: str) -> None:
        """A client message as it came off the socket (or relayed from another process): checked for shape in
        the table's task, then handled as :meth:`message`; a refusal goes back in order with the other replies."""
        self.submit(_Raw(peer, text, self.clock.now()))

    def refuse(self, peer: Peer, code: str, message: str, ref: str | None = None) -> None:
        """Refuse a message for its shape: an error reply, sent after the replies to the messages before it."""
        self.submit(_Refuse(peer, {"code": code, "message": message, "ref": ref}))

    def disconnect(self, peer: Peer) -> None:
        """A connection closed."""
        self.submit(_Disconnect(peer))

    async def run(self) -> None:
        """Read the queue and the clocks until stopped; one command at a time, in arrival order."""
        while True:
            wake = self._next_wake()
            command: _Command | None
            try:
                if wake is None:
                    command = await self.queue.get()
                else:
                    async with asyncio.timeout_at(wake):
                        command = await self.queue.get()
            except TimeoutError:
                command = None
            if isinstance(command, _Stop):
                return
            try:
                await self.step(command)
            except asyncio.CancelledError:
                raise
            except StaleSequenceError as exc:
                log.warning("table %s: another server runs it now (%s)", self.id, exc)
                self._moved()
                return
            except Exception as exc:
                if unavailable(exc):  # (a lost connection, a session ended: one line, no traceback)
                    log.warning("table %s: the database did not answer (%s)", self.id, outage_words(exc))
                else:
                    log.exception("table %s: internal error; reloading it from the database", self.id)
                if not self.moved and not self.reloaded:  # (_accept reloaded already)
                    await self._reload()
            self.reloaded = False
            if self.moved:
                return  # (taken over, or lost: the server lets it go, and the store's state is rebuilt)

    async def step(self, command: _Command | None = None) -> None:
        """Handle ``command`` (if any), then do what is due on the table's clock: one turn of :meth:`run`.

        The table's unit tests drive a table by this alone, on a fake clock, with no task and no waiting.
        """
        if command is not None and not isinstance(command, _Stop):
            await self._handle(command)
        await self._clocks()

    def next_wake(self) -> float | None:
        """When the table's clock next has something to do (None: nothing until a command comes)."""
        return self._next_wake()

    def _next_wake(self) -> float | None:
        times = [t for t in (self.deal_due, self.pause_due, self.game_due) if t is not None]
        if self.deadline is not None:
            times.append(self.deadline.due)
        times.extend(due for due, _ in self.bot_due.values())
        return min(times) if times else None

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await in_thread(self.db, fn, *args, **kwargs)

    # -- commands --------------------------------------------------------------------------------
    async def _handle(self, command: _Command) -> None:
        if isinstance(command, _Connect):
            await self._on_connect(command.peer, command.hello)
        elif isinstance(command, _Refuse):
            e = command.error
            command.peer.send(ErrorReply(self.seq, e["code"], e["message"], e["ref"]).text())
        elif isinstance(command, _Disconnect):
            self._on_disconnect(command.peer)
        elif isinstance(command, _Message):
            await self._on_message(command.peer, command.message, command.arrived)
        elif isinstance(command, _Raw):
            await self._on_raw(command)
        elif isinstance(command, _Call):
            try:
                answer = command.fn()
                if asyncio.iscoroutine(answer):
                    answer = await answer
            except Exception as exc:
                if not command.future.done():
                    command.future.set_exception(exc)
                if not isinstance(exc, ValueError) or isinstance(exc, NotOwnerError):
                    raise  # (another process runs the table now: run() stops this one)
            else:
                if not command.future.done():
                    command.future.set_result(answer)
        elif isinstance(command, BotDone):
            await self._on_bot_done(command)

    async def _on_connect(self, peer: Peer, hello: Hello) -> None:
        if hello.watch:
            await self._on_watch(peer)
            return
        seat = self._seat_of(hello.token) if hello.token is not None else self._seat_of_account(peer.account)
        if seat is None:
            peer.send(ErrorReply(self.seq, "unknown_token", "no seat at this table has this token").text())
            peer.close(CLOSE_UNKNOWN_TOKEN, "unknown token")
            return
        state = self.seats[seat]
        assert state is not None
        peer.seat = seat
        hand = self._hand()
        resume = (
            hand is not None
            and hello.hand == self.hand_number
            and hello.events is not None
            and hello.seq is not None
            and hello.seq <= self.seq
            and hello.events <= len(hand.visible_events(seat))
        )
        peer.hand_sent = self.hand_number
        peer.events_sent = hello.events if resume and hello.events is not None else 0
        was_connected = bool(state.peers)
        state.peers.append(peer)
        welcome = await self._welcome(peer, seat, resume)
        peer.send(welcome.text())
        if not was_connected:
            self._broadcast_seats(skip=peer)

    async def _welcome(self, peer: Peer, seat: int, resumed: bool) -> Welcome:
        """The answer to a hello: the table, the seat (or a spectator's), its state, the pace and the latest chat."""
        watching = seat == SPECTATOR
        return Welcome(
            self.id,
            self.info.name,
            None if watching else seat,
            self.rules.to_spec(),
            self.status.value,
            resumed,
            self._seats_json(),
            self._state_message(seat, peer),
            pace={
                "deal_ms": self.config.deal_ms,
                "bot_delay_ms": self.config.bot_delay_ms,
                "trick_pause_ms": self.config.trick_pause_ms,
                "keepalive_ms": round(self.config.keepalive_s * 1000),
            },
            chat=tuple(await self._db(self.store.read, lambda c: recent_lines(c, self.id))),
            watch_delay=self.info.watch_delay if watching else None,
            room=self.info.room,
        )

    async def _on_watch(self, peer: Peer) -> None:
        """A spectator said hello: the table as every player sees it (and no more), some tricks behind if set."""
        if not self.info.watchers:
            peer.send(ErrorReply(self.seq, "no_watchers", "this table does not allow spectators").text())
            peer.close(CLOSE_NO_WATCHERS, "no spectators")
            return
        peer.seat = SPECTATOR
        peer.hand_sent, peer.events_sent = self.hand_number, 0
        self.watchers.append(peer)
        welcome = await self._welcome(peer, SPECTATOR, False)
        peer.send(welcome.text())

    def _seat_of_account(self, account: tuple[int, str] | None) -> int | None:
        """The seat the logged-in account holds at this table, if any."""
        if account is None:
            return None
        for n, s in enumerate(self.seats):
            if s is not None and s.kind is SeatKind.PLAYER and s.account_id == account[0]:
                return n
        return None

    def _on_disconnect(self, peer: Peer) -> None:
        if peer in self.watchers:
            self.watchers.remove(peer)
            return
        state = self.seats[peer.seat] if 0 <= peer.seat <= 3 else None
        if state is not None and peer in state.peers:
            state.peers.remove(peer)
            if not state.peers:
                self._broadcast_seats()
                self._deal_if_all_ready()

    async def _on_raw(self, command: _Raw) -> None:
        peer = command.peer
        if peer.seat == -1:
            return  # (its hello was refused: the connection is closing)
        try:
            message = parse_client(command.text, seat=peer.seat)
        except ProtocolError as exc:
            peer.send(ErrorReply(self.seq, exc.code, str(exc), exc.ref).text())
            if exc.code == "too_large":
                peer.close(CLOSE_TOO_LARGE, "message too large")
            return
        await self._on_message(peer, message, command.arrived)

    async def _on_message(self, peer: Peer, message: ClientMessage, arrived: float) -> None:
        seat = peer.seat
        if seat == SPECTATOR:
            if peer not in self.watchers:
                return
            if isinstance(message, Ping):
                peer.send(Pong(self.seq, message.ref).text())
            elif isinstance(message, Chat):
                await self._chat(peer, None, message)
            else:  # (parse_client refuses the others off the socket; this is one given to message() parsed)
                peer.send(ErrorReply(self.seq, "watching", WATCHING, message.ref).text())
            return
        state = self.seats[seat]
        if state is None or peer not in state.peers:
            return  # the seat was left meanwhile
        ref = message.ref
        if isinstance(message, Ping):
            peer.send(Pong(self.seq, ref).text())
            return
        if isinstance(message, Chat):
            await self._chat(peer, seat, message)
            return
        if isinstance(message, Auto):
            self.missed.pop(seat, None)  # the player chose: the count of decisions missed in a row starts again
            await self._set_auto(seat, message.on)
            self._schedule()
            return
        if isinstance(message, Leave):
            await self._leave(seat)
            return
        if isinstance(message, Ready):
            await self._ready(seat, peer, ref)
            return
        if isinstance(message, Again):
            try:
                await self._again()
            except TableError as exc:
                peer.send(ErrorReply(self.seq, "illegal", str(exc), ref).text())
            return
        assert isinstance(message, Act)
        hand = self._hand()
        self.missed.pop(seat, None)  # the player acts: no longer missing decisions in a row
        if state.auto:
            await self._set_auto(seat, False)  # the player acts again: 托管 ends (even if this act is refused)
            self._schedule()
        if message.seq != self.seq:
            stale = f"the table is at sequence number {self.seq}, not {message.seq}: look at the latest update"
            peer.send(ErrorReply(self.seq, "stale", stale, ref).text())
            return
        if hand is None or self.hand_settled:
            peer.send(ErrorReply(self.seq, "illegal", "no hand is being played now", ref).text())
            return
        if message.action.kind is ActionKind.LEAVE:
            await self._leave(seat)
            return
        try:
            await self._accept(message.action, arrived)
        except IllegalActionError as exc:
            peer.send(ErrorReply(self.seq, "illegal", str(exc), ref, exc.phrase).text())
            self._schedule()

    # -- chat ------------------------------------------------------------------------------------
    async def _chat(self, peer: Peer, seat: int | None, message: Chat) -> None:
        """A line from a seat (any player) or a spectator (logged in only): stored, then sent to everyone here."""
        account = peer.account
        state = None if seat is None else self.seats[seat]
        if state is None and account is None:
            peer.send(ErrorReply(self.seq, "chat_login", "log in to chat as a spectator", message.ref).text())
            return
        speaker = f"account:{account[0]}" if account is not None else f"seat:{seat}"
        if not self.chat_limiter.allow(speaker):
            peer.send(ErrorReply(self.seq, "chat_limit", "too many chat lines: wait a few seconds", message.ref).text())
            return
        if state is not None:
            name = state.name
            account_id, account_name = state.account_id, state.name if state.account_id is not None else None
        else:
            assert account is not None
            name, account_id, account_name = account[1], account[0], account[1]
        line = await self._db(
            self.store.write,
            lambda c: add_line(c, self.id, seat, account_id, account_name, name, message.text, message.phrase),
        )
        text = ChatLine(self.seq, line).text()
        for p in self._all_peers():
            p.send(text)

    def _all_peers(self) -> list[Peer]:
        """Every connection at the table: the seats' and the spectators'."""
        return [p for s in self.seats if s is not None for p in s.peers] + list(self.watchers)

    # -- accepting an action: check, apply, store, then tell ---------------------------------------
    async def _accept(self, action: Action, arrived: float | None = None) -> None:
        """The one way an action enters the table: the engine checks it, the store keeps it, then all hear of it.

        What the action causes is stored in its transaction: a hand's credits and a game's ratings when it
        ends them, the rating of a player who leaves the game."""
        hand = self._hand()
        assert hand is not None
        hand.apply(action)  # checked first, atomically: a refused action raises and changes nothing
        # as the engine records it (a bid with the number of cards dealt): the log's last action
        recorded = next(item for item in reversed(hand.log) if isinstance(item, Action))
        deadline = self._next_deadline()
        writes = [
            self._hand_over(hand) if hand.phase is Phase.OVER else None,
            self._left_game(action.player) if action.kind is ActionKind.LEAVE and action.player is not None else None,
        ]

        def also(connection: Any) -> None:
            for write in writes:
                if write is not None:
                    write(connection)

        append = Append(
            self.id,
            self.seq,
            self.hand_number,
            recorded,
            deadline_at=deadline.at if deadline else None,
            owner=self.fence.owner if self.fence else None,
            epoch=self.fence.epoch if self.fence else None,
            also=also,
        )
        try:
            self.seq = await self.writer.append(append)  # (committed with the other tables' appends meanwhile)
        except BaseException:
            self._ending = None
            await self._reload()  # the hand in memory is ahead of the database: take the database's (or stop)
            raise
        ended, self._ending = self._ending, None
        if ended is not None:
            self.outcomes.append(ended)
        self.deadline = deadline
        if hand.phase is not Phase.DEAL:
            self.deal_due = None
        self._after_change()
        await self._store_finished()
        if ended is not None:
            self._tell(ended)
        self.stats.accepted += 1
        if arrived is not None:
            self.stats.latencies.append(self.clock.now() - arrived)

    def _hand_over(self, hand: Hand) -> Callable[[Any], None]:
        """What the action that ends ``hand`` also writes, in its transaction: each account's credits for the
        hand (the ledger), and when the hand ends the game, the game's result and the players' ratings."""
        result = hand.result
        assert self.game is not None
        # (a hand that a penalty's game lost ended has no result, RULES §14.4: nobody's credits change)
        postings = [] if result is None else self._postings(self.hand_number, result, self.hand_accounts)
        end = self.game.end_after_hand()  # the game's end, if this hand ends it (by climbing, or by time)
        ending = self._game_end(end) if end is not None else None

        def write(connection: Any) -> None:
            ledger.post(connection, postings)
            if ending is not None:
                ending(connection)

        return write

    def _game_end(self, end: GameEnd) -> Callable[[Any], None]:
        """What the end of the current game writes, in the transaction that stores it: the players' results and
        ratings, and the game's outcome (``table_games``), which the listeners are told once it is stored."""
        left_game = self._left_this_game()
        table_id, game, room, players = self.id, self.game_number, self.info.room, list(self.game_accounts)
        outcome = GameOutcome(table_id, game, end.winner, end.progress, end.by_time, end.hands, self.clock.wall())
        self._ending = outcome

        def write(connection: Any) -> None:
            ledger.finish_game(connection, table_id, game, end.winner, escaped=left_game)
            ratings.rate_game(connection, table_id, game, room, players, end.winner, escaped=left_game)
            record_outcome(connection, outcome)

        return write

    def _tell(self, outcome: GameOutcome) -> None:
        """Tell the listeners (the server's ``game_listeners``) of a game's outcome, stored now: each is awaited
        in a task of its own, so that the table goes on; an error is logged."""
        for listener in list(self.listeners):

            async def call(listener: GameListener = listener) -> None:
                try:
                    await listener(self.id, outcome)
                except Exception:
                    log.exception("table %s: a game listener failed for game %s", self.id, outcome.game)

            task = asyncio.get_running_loop().create_task(call())
            self.listening.add(task)
            task.add_done_callback(self.listening.discard)

    def match_wins(self) -> tuple[int, int]:
        """The games each team has won at this table (team 0: seats 0 and 2)."""
        wins = [0, 0]
        for outcome in self.outcomes:
            wins[outcome.winner] += 1
        return (wins[0], wins[1])

    def _match_goes_on(self) -> bool:
        """Whether another game follows the one that is over by itself: a best-of-three not yet won."""
        best_of = self.info.best_of
        return best_of > 1 and max(self.match_wins()) < best_of // 2 + 1 and len(self.outcomes) < best_of

    # -- the game's time limit (RULES §14.2) -------------------------------------------------------------
    async def _start_clock(self) -> None:
        """A game begins: its time limit (``game_minutes`` times the server's time scale) starts now (stored)."""
        minutes = self.info.game_minutes
        if minutes <= 0:
            self.game_due, self.game_ends_at = None, None
            return
        seconds = self.limit(minutes * 60)
        self.game_due = self.clock.now() + seconds
        self.game_ends_at = self.clock.wall() + timedelta(seconds=seconds)
        await self._db(self.store.set_game_clock, self.id, self.game_ends_at, fence=self.fence)

    async def _restore_clock(self, downtime: timedelta) -> None:
        """After a restart: the game's time limit goes on, its end moved on by the time the server was down."""
        game = self.game
        self.game_due = None
        if self.info.game_minutes <= 0 or game is None or game.over or game.time_called:
            return
        if self.info.game_ends_at is None:
            await self._start_clock()  # (a crash before the clock of a game just begun was stored)
            return
        moved = self.info.game_ends_at + downtime
        self.game_ends_at = moved
        self.game_due = self.clock.now() + max(0.0, (moved - self.clock.wall()).total_seconds())
        if downtime > timedelta(0):
            await self._db(self.store.set_game_clock, self.id, moved, fence=self.fence)

    async def _time_up(self) -> None:
        """The game's time ran out (RULES §14.2): between hands it ends now, and the side ahead wins; during a hand
        that hand is its last (the game ends when it is settled). Stored before anyone is told."""
        self.game_due = None
        game = self.game
        if game is None or game.over or game.time_called:
            return
        table_id, number = self.id, self.game_number
        if game.call_time():
            end = game.end
            assert end is not None
            ending = self._game_end(end)

            def write(connection: Any) -> None:
                mark_time_up(connection, table_id, number)
                ending(connection)

            try:
                await self._db(self.store.fenced_write, table_id, self.fence, write)
            except BaseException:
                self._ending = None
                await self._reload()
                raise
            ended, self._ending = self._ending, None
            assert ended is not None
            self.outcomes.append(ended)
            self.pause_due = None
            self._game_over()
            self._broadcast()
            await self._store_finished()
            self._tell(ended)
            return
        await self._db(self.store.fenced_write, table_id, self.fence, lambda c: mark_time_up(c, table_id, number))
        self._broadcast()

    def _game_over(self) -> None:
        """The game is over: the table is finished, or the next game of the match follows after the pause."""
        if self._match_goes_on():
            self.status = TableStatus.PLAYING
            self.pause_due = self.clock.now() + self.config.hand_pause_ms / 1000
        else:
            self.status = TableStatus.FINISHED
            self.pause_due = None

    def _postings(self, number: int, result: HandResult, accounts: list[int | None]) -> list[ledger.Posting]:
        """The ledger's rows for hand ``number`` of the current game: each seat's credits (the engine's), posted
        to ``accounts`` seat by seat, an escaper's penalty as ``escape`` (a leaver who pays none gets no row);
        none without the credits option."""
        credits = result.seat_credits()
        if credits is None:
            return []
        left = {e.player for e in result.escapes}
        escaped = {seat for seat in left if result.escaped(seat)}
        return ledger.hand_postings(
            self.id, self.game_number, number, self.info.room, accounts, credits, left=left, escaped=escaped
        )

    def _left_this_game(self) -> set[int]:
        """The seats whose player left the current game (逃跑), in any of its hands."""
        return set() if self.game is None else {seat for h in self.game.hands for seat in h.left}

    def _left_game(self, seat: int) -> Callable[[Any], None] | None:
        """What a player's leaving the game writes with its action: their rating, as a loss of their side, now
        (their game is over; the others are rated when it ends), and their game marked lost."""
        account = self.game_accounts[seat]
        if account is None:
            return None
        table_id, game, room, players = self.id, self.game_number, self.info.room, list(self.game_accounts)
        lost = 1 - TEAMS[seat]

        def write(connection: Any) -> None:
            ratings.rate_game(connection, table_id, game, room, players, lost, escaped={seat}, only={seat})
            ledger.left_game(connection, table_id, game, seat)

        return write

    def _after_change(self) -> None:
        """After an action or a card: settle a finished hand, tell every seat, plan the next clocks."""
        hand = self._hand()
        if hand is not None and hand.phase in (Phase.OVER, Phase.REDEAL) and not self.hand_settled:
            self._settle_hand()
        self._broadcast()
        self._schedule()

    def _settle_hand(self) -> None:
        assert self.game is not None
        self.game.finish_hand()
        self.hand_settled = True
        self.deadline = None
        self.deal_due = None
        self.bot_due.clear()
        if self.game.over:
            self.game_due = None
            self._game_over()
        else:
            self.pause_due = self.clock.now() + self.config.hand_pause_ms / 1000
        self.ready.clear()

    async def _ready(self, seat: int, peer: Peer, ref: str | None) -> None:
        """A player is ready for the next hand: deal it once every connected player not in 托管 is."""
        if self.pause_due is None:
            peer.send(ErrorReply(self.seq, "illegal", "ready is for the pause between two hands", ref).text())
            return
        self.ready.add(seat)
        if not self._deal_if_all_ready():
            self._broadcast()  # everyone sees who is ready

    def _deal_if_all_ready(self) -> bool:
        """Between hands, once a player is ready and every connected player not in 托管 is: make the next
        deal due now (the clocks deal it). Checked when a player is ready, leaves its last connection, or
        goes into 托管, so that nobody waits for a player who is gone."""
        if self.pause_due is None or not self.ready:
            return False
        for n, s in enumerate(self.seats):
            if s is not None and s.kind is SeatKind.PLAYER and s.peers and not s.auto and n not in self.ready:
                return False
        self.pause_due = self.clock.now()
        return True

    # -- clocks ----------------------------------------------------------------------------------
    async def _clocks(self) -> None:
        """Do what is due: finish a game's status, the next card, a deadline, a bot's turn, the next hand."""
        await self._store_finished()
        for _ in range(200):  # what is due now, a bounded amount at a time
            now = self.clock.now()
            if self.game_due is not None and self.game_due <= now:
                await self._time_up()
                continue
            if self.pause_due is not None and self.pause_due <= now:
                self.pause_due = None
                if self.game is not None and self.game.over and self._match_goes_on():
                    await self._next_game(match=True)
                else:
                    await self._start_hand()
                continue
            if self.deal_due is not None and self.deal_due <= now:
                await self._deal_one()
                continue
            if self.deadline is not None and self.deadline.due <= now:
                await self._expire()
                continue
            due = [(t, s) for s, (t, _) in self.bot_due.items() if t <= now]
            if due:
                _, seat = min(due)
                _, key = self.bot_due.pop(seat)
                await self._bot_turn(seat, key)
                continue
            return

    async def _store_finished(self) -> None:
        """Store that the game is over, once it is (the table waits for ``again`` then)."""
        if self.status is TableStatus.FINISHED and self.info.status is not TableStatus.FINISHED:
            await self._db(self.store.set_status, self.id, TableStatus.FINISHED, fence=self.fence)
            self.info = await self._db(self.store.info, self.id)

    async def _deal_one(self) -> None:
        hand = self._hand()
        self.deal_due = None
        if hand is None or hand.phase is not Phase.DEAL:
            return
        ev = hand.deal_card()
        seat = ev.player
        if hand.phase is Phase.DEAL:
            self.deal_due = self.clock.now() + self.config.deal_ms / 1000
            if seat is not None:
                self._send_state(seat)
                if self._bot_plays(seat):
                    await self._bot_turn(seat, self._bot_key(seat), ask_now=True)
        else:  # the last card: the countdown starts
            self.deadline = self._next_deadline()
            await self._db(
                self.store.set_deadline, self.id, self.deadline.at if self.deadline else None, fence=self.fence
            )
            self._broadcast()
            self._schedule()

    # -- seats, leaving, games ---------------------------------------------------------------------
    async def take_seat(
        self, seat: int | None, name: str, bot: str | None, account: tuple[int, str] | None = None
    ) -> dict[str, Any]:
        """Seat a guest or an account's player (``bot`` None; returns a resume token, shown once) or a bot;
        starts the game at four. An account's seat has the account's name; an account sits once at a table."""
        if self.game is not None and not self.game.over:
            raise TableError("the game has started: every seat is taken")
        if account is not None and bot is None:
            held = self._seat_of_account(account)
            if held is not None:
                raise TableError(f"you already sit at this table (seat {held})")
            name = account[1]
        free = [n for n, s in enumerate(self.seats) if s is None]
        if seat is None:
            if not free:
                raise TableError("the table is full")
            open_to = [n for n in free if self._reserved_refusal(n, bot, account) is None]
            if not open_to:
                raise TableError("every free seat is reserved for another player", 403)
            seat = open_to[0]
        if self.seats[seat] is not None:
            raise TableError(f"seat {seat} is taken")
        refusal = self._reserved_refusal(seat, bot, account)
        if refusal is not None:
            raise TableError(refusal, 403)
        token: str | None = None
        if bot is None:
            token = secrets.token_urlsafe(24)
            account_id = account[0] if account is not None else None
            state = SeatState(SeatKind.PLAYER, name, "rules", hash_token(token), account_id=account_id)
        else:
            state = SeatState(SeatKind.BOT, name or f"{bot} bot", bot, None)
        await self._db(
            self.store.take_seat,
            self.id,
            seat,
            state.kind,
            state.name,
            bot=state.bot,
            token_hash=state.token_hash,
            account_id=state.account_id,
            fence=self.fence,
        )
        self.seats[seat] = state
        self._broadcast_seats()
        if self.game is None and all(s is not None for s in self.seats):
            await self._start_game()  # (after a game, the next starts when a player asks: again)
        out: dict[str, Any] = {"table": self.id, "seat": seat}
        if token is not None:
            out["token"] = token
        return out

    def _reserved_refusal(self, seat: int, bot: str | None, account: tuple[int, str] | None) -> str | None:
        """Why ``seat``, reserved by the table's event, is not for this player or bot (None: it may sit there)."""
        kept = self.reserved.get(seat)
        if kept is None:
            return None
        if kept.bot is not None:
            return None if bot == kept.bot else f"seat {seat} is reserved for the {kept.bot} bot"
        if bot is None and account is not None and account[0] == kept.account_id:
            return None
        return f"seat {seat} is reserved for {kept.name}"

    async def claim(self, token: str, account: tuple[int, str]) -> dict[str, Any]:
        """A guest's seat becomes ``account``'s (the guest registered or logged in): its name becomes the
        account's, and the credits of the hands already played in this game are posted to its ledger."""
        seat = self._seat_of(token)
        if seat is None:
            raise TableError("no seat at this table has this token", 403)
        state = self.seats[seat]
        assert state is not None
        if state.account_id == account[0]:
            return {"table": self.id, "seat": seat}
        if state.account_id is not None:
            raise TableError("this seat is another account's", 409)
        held = self._seat_of_account(account)
        if held is not None:
            raise TableError(f"your account already sits at this table (seat {held})", 409)
        await self._db(self.store.update_seat, self.id, seat, name=account[1], account_id=account[0], fence=self.fence)
        state.name, state.account_id = account[1], account[0]
        self.hand_accounts[seat] = account[0]
        if self.game is not None and self.game.hands:
            self.game_accounts[seat] = account[0]
            mine: list[int | None] = [account[0] if n == seat else None for n in range(4)]
            first = self.hand_number - len(self.game.hands) + 1
            postings = [
                p
                for number, summary in enumerate(self.game.history, first)
                if summary.result is not None
                for p in self._postings(number, summary.result, mine)
            ]
            table_id, game, room, over = self.id, self.game_number, self.info.room, self.game.winner
            players = list(self.game_accounts)
            left_game = self._left_this_game()

            def write(connection: Any) -> None:
                ledger.set_game_account(connection, table_id, game, seat, account[0], account[1])
                ledger.post(connection, postings)
                if over is not None:
                    ratings.rate_game(connection, table_id, game, room, players, over, escaped=left_game)

            await self._db(self.store.write, write)
        self._broadcast_seats()
        return {"table": self.id, "seat": seat}

    def _seat_of(self, token: str) -> int | None:
        """The seat whose resume token this is (compared by digest, in constant time), or None."""
        digest = hash_token(token)
        for n, s in enumerate(self.seats):
            if s is not None and s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                return n
        return None

    async def leave_by_token(self, token: str) -> dict[str, Any]:
        """The lobby's leave: the seat whose token this is leaves."""
        seat = self._seat_of(token)
        if seat is None:
            raise TableError("no seat at this table has this token", 403)
        return await self._leave(seat)

    async def _leave(self, seat: int) -> dict[str, Any]:
        """Leave: a free seat before or after a game; during one 逃跑 (RULES §13), and the seat's bot plays on."""
        state = self.seats[seat]
        assert state is not None
        hand = self._hand()
        peers = list(state.peers)
        in_game = self.game is not None and not self.game.over
        if in_game:
            if hand is not None and not self.hand_settled:
                await self._accept(Action.leave(seat))  # the engine charges the escape penalty
            else:  # between hands: the next hand starts now, and the leave is its first action
                self.pause_due = None
                await self._start_hand(leaving=seat)
            await self._db(
                self.store.update_seat, self.id, seat, kind=SeatKind.BOT, token_hash=None, auto=False, fence=self.fence
            )
            self.seats[seat] = SeatState(SeatKind.BOT, state.name, "rules", None)
        else:
            await self._db(self.store.free_seat, self.id, seat, fence=self.fence)
            self.seats[seat] = None
        for peer in peers:
            peer.send(Left(self.seq, seat, in_game).text())
            peer.close(CLOSE_LEFT, "left the table")
        self._broadcast_seats()
        self._schedule()
        return {"table": self.id, "seat": seat, "escaped": in_game}

    async def penalize(self, game: int, penalty: Penalty) -> dict[str, Any]:
        """A referee's penalty (RULES §14.4) given to game ``game`` in progress here: an action of the hand's log,
        checked by the engine, stored, then told to every seat and spectator like any action. Between two hands
        the next hand is dealt now and the penalty is its first action. :class:`TableError` with status 404 when
        that game is not being played here (the penalty then counts in the event's result alone); the engine's
        refusal (:class:`IllegalActionError`) says why in words."""
        current = self.game
        if current is None or current.over or self.game_number != game:
            state = "not started" if current is None else "over" if current.over else f"not game {game}"
            raise TableError(
                f"game {game} is not being played at table {self.id} (game {self.game_number}: {state})", 404
            )
        hand = self._hand()
        if hand is not None and not self.hand_settled:
            await self._accept(Action.penalize(penalty))
        else:
            if penalty.points and current.next_dealer is None:  # (the first hand again, a redeal: no sides yet)
                raise IllegalActionError(say("penalty.no_dealer"))
            self.pause_due = None
            await self._start_hand(penalty=penalty)
        return {"table": self.id, "game": self.game_number, "hand": self.hand_number, "seq": self.seq}

    async def _again(self) -> None:
        if self.game is None or not self.game.over:
            raise TableError("the game is not over")
        if self.info.best_of > 1 or self.info.event_id is not None:
            raise TableError("the match at this table is over: the table is finished")
        if any(s is None for s in self.seats):
            raise TableError("a new game needs four seats taken")
        await self._store_finished()
        await self._next_game()

    async def _next_game(self, *, match: bool = False) -> None:
        """Start the table's next game: after ``again``, or by itself in a match (``match``)."""
        self.game_number = await self._db(self.store.next_game, self.id, fence=self.fence, match=match)
        self.status = TableStatus.PLAYING
        self.info = await self._db(self.store.info, self.id)
        self.game = None
        self.ready.clear()
        await self._start_game()

    async def _start_game(self) -> None:
        self.game = Game(self.rules, game_seed(self.info.seed, self.game_number))
        self.status = TableStatus.PLAYING
        await self._write_players()
        await self._start_clock()
        await self._start_hand()

    async def _write_players(self) -> None:
        """Store who sits where as the game begins (``game_players``): an account, a guest's name, or a bot
        (with its rating account); the game's ratings and the players' lists of games read them."""
        seats = [
            (s.account_id, s.name, None) if s.kind is SeatKind.PLAYER else (None, s.name, s.bot)
            for s in self.seats
            if s is not None
        ]
        table_id, game, room = self.id, self.game_number, self.info.room

        def write(connection: Any) -> list[int | None]:
            if len(seats) == 4:
                rows = [(ratings.bot_account(connection, b) if b is not None else a, n, b) for a, n, b in seats]
                ledger.start_game(connection, table_id, game, room, rows)  # (rows already there are kept)
            return ledger.game_accounts(connection, table_id, game)

        self.game_accounts = await self._db(self.store.write, write)

    async def _start_hand(self, *, leaving: int | None = None, penalty: Penalty | None = None) -> None:
        """Deal the next hand, stored before anyone hears of it; ``leaving``: a seat whose leave is its first action,
        ``penalty``: a referee's penalty that is (:meth:`penalize`)."""
        game = self.game
        if game is None or game.over:
            return
        hand = game.new_hand()
        number = self.hand_number + 1
        await self._db(self.store.record_hand_start, self.id, number, hand.deck, hand.first_seat, fence=self.fence)
        self.hand_number = number
        self.hand_accounts = [s.account_id if s is not None and s.kind is SeatKind.PLAYER else None for s in self.seats]
        self.hand_settled = False
        self.deadline = None
        self.deal_due = None
        self.asked_in_countdown.clear()
        self.status = TableStatus.PLAYING
        if leaving is not None:
            await self._accept(Action.leave(leaving))
        if penalty is not None:
            await self._accept(Action.penalize(penalty))
        self._broadcast()
        self._schedule()

    # -- restart -----------------------------------------------------------------------------------
    async def restore(self, downtime: timedelta) -> None:
        """Rebuild the game from the database and carry on: deadlines (and the game's time limit) extended by
        ``downtime``."""
        info = self.info
        self.reserved = await self._db(self.store.reserved, self.id)
        self.outcomes = await self._db(self.store.game_outcomes, self.id)
        if info.hand_number == 0 and all(s is not None for s in self.seats) and info.status is TableStatus.PLAYING:
            await self._start_game()
            return
        if info.hand_number == 0:
            return
        game = await self._db(self.store.rebuild, self.id)
        await self._write_players()  # (written as the game began; again only if a crash came between)
        if not game.hands and not game.over:  # a new game was started but not its first hand
            self.game = game
            await self._restore_clock(downtime)
            await self._start_hand()
            return
        self.game = game
        await self._restore_clock(downtime)
        hand = game.current
        self.hand_settled = hand is None or hand.phase in (Phase.OVER, Phase.REDEAL)
        if self.hand_settled:
            if game.over:
                self._game_over()
            else:
                self.pause_due = self.clock.now() + self.config.hand_pause_ms / 1000
            return
        assert hand is not None
        self.hand_accounts = [
            s.account_id
            if s is not None and s.kind is SeatKind.PLAYER
            else self.game_accounts[n]
            if n in hand.left
            else None
            for n, s in enumerate(self.seats)
        ]
        for seat in hand.left:  # a leave stored just before a crash: the seat is the bot's
            state = self.seats[seat]
            if state is not None and state.kind is SeatKind.PLAYER:
                await self._db(
                    self.store.update_seat,
                    self.id,
                    seat,
                    kind=SeatKind.BOT,
                    token_hash=None,
                    auto=False,
                    fence=self.fence,
                )
                self.seats[seat] = SeatState(SeatKind.BOT, state.name, "rules", None)
        self.deadline = self._next_deadline()
        if self.deadline is not None and info.deadline_at is not None:
            self.deadline = self.deadline.extended(downtime.total_seconds(), self.clock, info.deadline_at)
            moved = self.deadline.at
            await self._db(self.store.set_deadline, self.id, moved, fence=self.fence)
        self._schedule()

    async def _reload(self) -> None:
        """Take the database's state again (after an error that may have left memory ahead of it: an action applied
        whose append failed). Nothing is told until it is the store's again: if the database cannot be read, the
        table stops here (:meth:`_lost`), and the server rebuilds it from the store once it answers."""
        self.reloaded = True
        try:
            info = await self._db(self.store.info, self.id)
            seats = await self._db(self.store.seats, self.id)
        except Exception as exc:
            self._lost(exc)
            return
        if self.fence is not None and (info.owner, info.epoch) != (self.fence.owner, self.fence.epoch):
            self._moved()
            return
        peers = [p for s in self.seats if s is not None for p in s.peers]
        self._load(info, seats)
        try:
            await self.restore(timedelta(0))
        except Exception as exc:
            self._lost(exc, peers)
            return
        for p in peers:
            state = self.seats[p.seat]
            if state is not None and state.token_hash is not None:
                state.peers.append(p)
                p.events_sent = 0
            else:
                p.close(CLOSE_LEFT, "left the table")
        self._broadcast()

    def _lost(self, exc: Exception, peers: list[Peer] | None = None) -> None:
        """The table cannot be reloaded (the database did not answer): it stops here, its clients closed with 1013
        (reconnect in a moment). The server lets it go (:attr:`moved`) and rebuilds it from the store, so that
        nothing the store does not hold is ever told (the state in memory may be ahead of it)."""
        if isinstance(exc, StoreUnavailable):
            log.warning("table %s: cannot reload it (%s): it stops until the database answers", self.id, exc)
        else:
            log.error("table %s: cannot reload it: it stops", self.id, exc_info=exc)
        self.moved = True
        for p in [*self._all_peers(), *(peers or [])]:
            p.close(CLOSE_TRY_AGAIN, "the table is reloading: reconnect in a moment")

    def _moved(self) -> None:
        self.moved = True
        for p in self._all_peers():
            p.send(ErrorReply(self.seq, "moved", "another server runs this table now: reconnect").text())
            p.close(CLOSE_MOVED, "table moved")

    # -- what clients are sent -----------------------------------------------------------------------
    def _hand(self) -> Hand | None:
        return None if self.game is None else self.game.current

    def _seats_json(self) -> list[dict[str, Any] | None]:
        return [None if s is None else s.to_json(n) for n, s in enumerate(self.seats)]

    def game_json(self) -> dict[str, Any] | None:
        """The game so far: its number, hands, both teams' levels and credits, each seat's credits, the winner,
        and the dealer of the next hand (the game's dealer rotation, RULES §2)."""
        game = self.game
        if game is None:
            return None
        out: dict[str, Any] = {
            "number": self.game_number,
            "hands": len(game.hands),
            "levels": [p.to_json() for p in game.progress_now],  # (less a penalty's levels at once, RULES §14.4)
            "credits": list(game.credits) if self.rules.credits else None,
            "over": game.over,
            "winner": game.winner,
            "next_dealer": game.next_dealer,
            "clock": self._clock_json(game),
            "match": self._match_json(),
        }
        seat_credits = getattr(game, "seat_credits", None)
        if self.rules.credits and seat_credits is not None:
            out["seat_credits"] = list(seat_credits)
        return out

    def _clock_json(self, game: Game) -> dict[str, Any] | None:
        """The game's time limit (RULES §14.2): its minutes, the milliseconds left, and whether the time ran out
        (the hand in progress is then the last); None for a table whose games have no limit."""
        minutes = self.info.game_minutes
        if minutes <= 0:
            return None
        due = self.game_due
        ms = 0 if due is None or game.over else max(0, round((due - self.clock.now()) * 1000))
        return {"minutes": minutes, "ms": ms, "time_up": game.time_called}

    def _match_json(self) -> dict[str, Any] | None:
        """A best-of-three: ``best_of`` and the games each team has won (None for a table of single games)."""
        if self.info.best_of <= 1:
            return None
        a, b = self.match_wins()
        return {"best_of": self.info.best_of, "wins": [a, b]}

    def _state_message(self, seat: int, peer: Peer, seen: _Seen | None = None) -> TableState:
        """The seat's view (built from :meth:`Hand.view` alone) and the events this connection has not had.

        ``seen``: what :meth:`_seen` made of the table for the seat (once for all its connections)."""
        if seen is None:
            seen = self._seen(seat)
        if seen.view is None:
            return TableState(self.seq, self.hand_number, seen.game, seen.deadline, None, 0, [])
        if peer.hand_sent != self.hand_number:
            peer.hand_sent, peer.events_sent = self.hand_number, 0
        events = seen.view.events
        start = min(peer.events_sent, len(events))
        peer.events_sent = len(events)
        sent = [e.to_json() for e in events[start:]]  # the events go separately: only those not yet sent
        return TableState(self.seq, self.hand_number, seen.game, seen.deadline, seen.json, start, sent)

    def _seen(self, seat: int, shared: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None) -> _Seen:
        """What ``seat`` (or a spectator) is shown of the table now: the game, the deadline and its view (its JSON
        without the events and the rules: the rules are sent once, in the welcome). ``shared``: the game's and
        the deadline's JSON when the caller made them already (one change, told to several seats)."""
        hand = self._hand()
        game, deadline = shared if shared is not None else (self.game_json(), self._deadline_json(self.clock.now()))
        if hand is None:
            return _Seen(game, deadline, None, None)
        if seat == SPECTATOR:
            watched = self._watched_hand(hand)
            seen = watched.view(SPECTATOR)
            if watched is not hand:
                deadline = None  # (kept behind, a spectator is not told whose turn it is now)
        else:
            seen = hand.view(seat)
        return _Seen(game, deadline, seen, seen.to_json(rules=False, events=False))

    def _deadline_json(self, now: float) -> dict[str, Any] | None:
        """The decision waited for, or between hands the next deal (``kind`` ``next``, with who is ready)."""
        if self.deadline is not None:
            return self.deadline.to_json(now)
        if self.pause_due is not None:
            ms = max(0, round((self.pause_due - now) * 1000))
            return {"seat": None, "kind": "next", "ms": ms, "ready": sorted(self.ready)}
        return None

    def _send_state(self, seat: int, shared: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None) -> None:
        """Send ``seat``'s connections (or the spectators') the table as they see it now: nothing is built for a seat
        with no connection; the view once for the seat, the text once for its connections that hold the same events."""
        state = None if seat == SPECTATOR else self.seats[seat]
        peers = self.watchers if seat == SPECTATOR else [] if state is None else state.peers
        if not peers:
            return
        seen = self._seen(seat, shared)
        texts: dict[tuple[int, int], str] = {}
        for peer in peers:
            key = (peer.hand_sent, peer.events_sent)
            text = texts.get(key)
            if text is None:
                text = texts[key] = Update(self._state_message(seat, peer, seen)).text()
            else:
                self._state_message(seat, peer, seen)  # (moves the connection's count of events on alike)
            peer.send(text)

    def _broadcast(self) -> None:
        shared = (self.game_json(), self._deadline_json(self.clock.now()))
        for seat in range(4):
            self._send_state(seat, shared)
        self._send_state(SPECTATOR, shared)

    def _broadcast_seats(self, skip: Peer | None = None) -> None:
        text = Seats(self.seq, self._seats_json()).text()
        for peer in self._all_peers():
            if peer is not skip:
                peer.send(text)

    def _watched_hand(self, hand: Hand) -> Hand:
        """The hand as spectators see it: during play, ``watch_delay`` whole tricks behind (the tricks since and
        the trick in progress not yet shown); before play and once the hand is over, as it is.

        It is a copy of the hand replayed from its start (:meth:`Hand.restart`) and moved on, one action at a
        time, to the moment the shown trick ended (or play began): each action is replayed once a hand."""
        delay = self.info.watch_delay
        if delay == 0 or hand.phase is not Phase.PLAY:
            return hand
        shown = max(0, len(hand.tricks) - delay)
        kept = self._watched
        if kept is None or kept.replica.deck != hand.deck or kept.applied > len(hand.actions):
            kept = self._watched = _Replay(hand.restart())
        replica = kept.replica
        while kept.applied < len(hand.actions):
            if shown == 0 and replica.phase in (Phase.PLAY, Phase.OVER):
                break  # play has begun: no trick shown yet
            if shown > 0 and len(replica.tricks) >= shown and not replica.current:
                break  # the last trick to show has ended
            replica.apply(hand.actions[kept.applied])
            kept.applied += 1
        return replica

    def summary(self) -> dict[str, Any]:
        """The lobby's line for this table."""
        hand = self._hand()
        return {
            "id": self.id,
            "name": self.info.name,
            "rules": self.rules.to_spec(),
            "room": self.info.room,
            "preset": self.rules.name,
            "status": self.status.value,
            "seats": self._seats_json(),
            "seq": self.seq,
            "hand": self.hand_number,
            "phase": None if hand is None else hand.phase.value,
            "game": self.game_json(),
            "games": self.game_number if self.hand_number else 0,
            "watch": self.info.watchers,
            "watch_delay": self.info.watch_delay,
            "watchers": len(self.watchers),
            "event": self.info.event_id,
            "game_minutes": self.info.game_minutes,
            "best_of": self.info.best_of,
            "match": self._match_json(),
            "reserved": [self._reserved_json(n) for n in range(4)],
        }

    def _reserved_json(self, seat: int) -> dict[str, Any] | None:
        """A reserved seat as the lobby shows it: ``{"name"}`` for an account's, ``{"bot"}`` for a bot's."""
        kept = self.reserved.get(seat)
        if kept is None:
            return None
        return {"bot": kept.bot} if kept.bot is not None else {"name": kept.name}
