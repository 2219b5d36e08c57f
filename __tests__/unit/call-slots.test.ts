import { describe, expect, it } from 'vitest'
import { CallSlots } from '../../src/model/call-slots.js'

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('CallSlots', () => {
  it('lets `limit` callers in, then hands each freed slot to the longest waiter', async () => {
    const slots = new CallSlots(2)
    const order: string[] = []
    const enter = async (name: string) => {
      const release = await slots.acquire()
      order.push(name)
      return release
    }
    const a = await enter('a')
    const b = await enter('b')
    const c = enter('c')
    const d = enter('d')
    await tick()
    expect(order).toEqual(['a', 'b'])
    a()
    a() // a second release of the same slot frees nothing more
    await tick()
    expect(order).toEqual(['a', 'b', 'c'])
    b()
    await tick()
    expect(order).toEqual(['a', 'b', 'c', 'd'])
    ;(await c)()
    ;(await d)()
    // All four slots are back: two callers get in at once again.
    await Promise.all([enter('e'), enter('f')])
    expect(order.slice(4)).toEqual(['e', 'f'])
  })

  it('stops waiting when the signal aborts, and the waiter gives up its place', async () => {
    const slots = new CallSlots(1)
    const held = await slots.acquire()
    const controller = new AbortController()
    const cancelled = slots.acquire(controller.signal)
    const next = slots.acquire()
    controller.abort(new Error('another draft failed'))
    await expect(cancelled).rejects.toThrow('another draft failed')
    held()
    const release = await next
    release()
    // A caller already cancelled gets no slot, even a free one.
    await expect(slots.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone')
  })
})
