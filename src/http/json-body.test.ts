import { describe, expect, it } from 'vitest';
import { BadJsonBody, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from './json-body.js';

const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

describe('parseJsonBody', () => {
  it('counts nesting on the text; brackets inside strings (escaped quotes too) do not count', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan('[[[]]]', 2)).toBe(true);
    expect(nestsDeeperThan(`{"s":"${'['.repeat(100)}","t":"\\"${'{'.repeat(100)}\\\\"}`, 1)).toBe(false);
    expect(nestsDeeperThan('{"s":"a\\\\"}', 1)).toBe(false);
  });

  it('refuses deep nesting, invalid JSON and NUL; drops __proto__ and a constructor holding prototype only', () => {
    expect(() => parseJsonBody(nested(5_000))).toThrow(BadJsonBody);
    expect(() => parseJsonBody(nested(5_000))).toThrow(/deeper than 64/);
    expect(parseJsonBody(nested(MAX_JSON_DEPTH))).toBeTypeOf('object');
    expect(() => parseJsonBody('{"a":')).toThrow(/not valid JSON/);
    expect(() => parseJsonBody('{"a":"x\\u0000"}')).toThrow(/NUL/);
    const parsed = parseJsonBody('{"constructor":1,"j":{"constructor":{"name":"x"}},"__proto__":{"admin":true},"k":{"\\u0063onstructor":{"prototype":{}}}}');
    expect(parsed).toEqual({ constructor: 1, j: { constructor: { name: 'x' } }, k: {} });
    expect(Object.hasOwn(parsed as object, '__proto__')).toBe(false);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
