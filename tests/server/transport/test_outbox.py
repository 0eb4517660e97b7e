"""The socket outbox: first in first out, a waiting writer wakes, join waits for task_done."""

from __future__ import annotations

import asyncio

import pytest

from domino.server.transport.conn import Conn, Outbox


async def test_items_come_out_in_order_and_a_waiting_get_wakes() -> None:
    box = Outbox()
    getter = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    assert not getter.done()
    box.put_nowait("a")
    box.put_nowait("b")
    assert await getter == "a"
    assert box.qsize() == 1
    assert box.get_nowait() == "b"
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_join_waits_until_every_item_is_done() -> None:
    box = Outbox()
    await box.join()  # nothing queued: returns at once
    box.put_nowait("a")
    box.put_nowait(None)
    joined = asyncio.create_task(box.join())
    await asyncio.sleep(0)
    assert await box.get() == "a"
    box.task_done()
    await asyncio.sleep(0)
    assert not joined.done()
    assert await box.get() is None
    box.task_done()
    await asyncio.wait_for(joined, 1)


def test_a_conn_queues_encoded_text_then_the_close_marker() -> None:
    conn = Conn("p1", "Anna")
    conn.send({"type": "pong"})
    conn.close(1000)
    conn.send({"type": "late"})  # after close: dropped
    assert conn.outbox.qsize() == 2
    assert conn.outbox.get_nowait() == '{"type":"pong"}'
    assert conn.outbox.get_nowait() is None


def test_a_conn_writes_at_once_while_its_outbox_is_idle_and_queues_behind_a_backlog() -> None:
    written: list[str] = []
    can_write = [True]

    def direct(text: str) -> bool:
        if can_write[0]:
            written.append(text)
        return can_write[0]

    conn = Conn("p1", "Anna")
    conn.direct = direct
    conn.send_text("a")
    assert written == ["a"] and conn.outbox.idle()
    can_write[0] = False  # the transport asked to wait: queue
    conn.send_text("b")
    can_write[0] = True
    conn.send_text("c")  # "b" still waits: "c" goes behind it, never ahead
    assert written == ["a"]
    assert [conn.outbox.get_nowait(), conn.outbox.get_nowait()] == ["b", "c"]
    conn.outbox.task_done()
    assert not conn.outbox.idle()  # "c" was taken but is not sent yet
    conn.outbox.task_done()
    conn.send_text("d")
    assert written == ["a", "d"]
    conn.close(1000)
    conn.send_text("e")  # closed: neither written nor queued
    assert written == ["a", "d"] and conn.outbox.get_nowait() is None
