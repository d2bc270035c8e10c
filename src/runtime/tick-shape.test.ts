import { expect, test } from 'vitest';
import { heldTickObjects, holdTickObjectShape } from './tick-shape.js';

test("holds Node's own TickObjects, with and without arguments, for the life of the process", async () => {
  await holdTickObjectShape();
  const held = heldTickObjects();
  expect(held).toHaveLength(2);
  for (const tick of held) {
    // What Node's nextTick builds: its async-id symbols, then the callback and its arguments.
    expect(Object.getOwnPropertySymbols(tick).map((symbol) => symbol.description)).toEqual(expect.arrayContaining(['async_id_symbol', 'trigger_async_id_symbol']));
    expect(Object.keys(tick)).toEqual(['callback', 'args']);
  }
  expect((held[0] as { args: unknown }).args).toBeUndefined();
  expect((held[1] as { args: unknown }).args).toHaveLength(1);
});
