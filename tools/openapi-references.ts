// The second half of the generated types' layout (tools/openapi-layout.ts has the first): what one operation
// declares exactly as an earlier one did is written as a reference to it, and the paths are derived from a
// table of routes rather than written out path by path.
//
// - Parameters, a request body or an answer that spans several lines and is, to the letter and with its
//   comments, one an earlier operation declared: `operations["getObject"]["parameters"]`. A request body that
//   is an earlier one with every field optional (an update beside its create):
//   `Partial<operations["createTenantApp"]["requestBody"]["content"]["application/json"]>`.
// - `routes`: each operation's method and path, a line apiece. `paths`, which openapi-fetch reads, is the
//   same routes grouped by path: `paths["/v1/users/{user_id}"]` has `get`, `patch` and `delete`, as before.
import ts from 'typescript';
import { f, nameOf, text, withType } from './openapi-ast.js';

const lit = (value: string): ts.LiteralTypeNode => f.createLiteralTypeNode(f.createStringLiteral(value));
const indexed = (...keys: (string | number)[]): ts.TypeNode =>
  keys.reduce<ts.TypeNode>(
    (type, key) => f.createIndexedAccessTypeNode(type, typeof key === 'number' ? f.createLiteralTypeNode(f.createNumericLiteral(key)) : lit(key)),
    f.createTypeReferenceNode('operations'),
  );
const multiLine = (type: ts.TypeNode): boolean => text(type).includes('\n');

/** `JsonBody<T>`'s T, when the body is written that way. */
function bodyOf(type: ts.TypeNode | undefined): ts.TypeLiteralNode | undefined {
  if (!type || !ts.isTypeReferenceNode(type) || text(type.typeName) !== 'JsonBody') return undefined;
  const [body] = type.typeArguments ?? [];
  return body && ts.isTypeLiteralNode(body) ? body : undefined;
}
const allOptional = (body: ts.TypeLiteralNode): string =>
  text(f.createTypeLiteralNode(body.members.map((m) => (ts.isPropertySignature(m) ? withType(f.updatePropertySignature(m, m.modifiers, m.name, f.createToken(ts.SyntaxKind.QuestionToken), m.type), m.type!) : m))));

/** The operations, each member that repeats an earlier operation's written as a reference to it. */
export function referenceRepeats(operations: ts.InterfaceDeclaration): ts.InterfaceDeclaration {
  const seen = new Map<string, ts.TypeNode>();
  const partials = new Map<string, string>();
  const reuse = (type: ts.TypeNode, reference: ts.TypeNode): ts.TypeNode => {
    if (!multiLine(type)) return type;
    const key = text(type);
    const earlier = seen.get(key);
    if (earlier) return earlier;
    seen.set(key, reference);
    return type;
  };
  const members = operations.members.map((op) => {
    if (!ts.isPropertySignature(op) || !op.type || !ts.isTypeLiteralNode(op.type)) return op;
    const id = nameOf(op);
    const parts = op.type.members.map((part) => {
      if (!ts.isPropertySignature(part) || !part.type) return part;
      const name = nameOf(part);
      if (name === 'parameters') return withType(part, reuse(part.type, indexed(id, 'parameters')));
      if (name === 'requestBody') {
        const body = bodyOf(part.type);
        const partialOf = body && partials.get(text(body));
        if (partialOf) {
          const whole = indexed(partialOf, 'requestBody', 'content', 'application/json');
          return withType(part, f.createTypeReferenceNode('JsonBody', [f.createTypeReferenceNode('Partial', [whole])]));
        }
        if (body && !partials.has(allOptional(body))) partials.set(allOptional(body), id);
        return withType(part, reuse(part.type, indexed(id, 'requestBody')));
      }
      if (name === 'responses' && ts.isIntersectionTypeNode(part.type)) {
        const [answers, ...rest] = part.type.types;
        if (answers && ts.isTypeLiteralNode(answers)) {
          const statuses = answers.members.map((answer) =>
            ts.isPropertySignature(answer) && answer.type && /^\d+$/.test(nameOf(answer)) ? withType(answer, reuse(answer.type, indexed(id, 'responses', Number(nameOf(answer))))) : answer,
          );
          return withType(part, f.createIntersectionTypeNode([f.createTypeLiteralNode(statuses), ...rest]));
        }
      }
      return part;
    });
    return withType(op, f.createTypeLiteralNode(parts));
  });
  return f.updateInterfaceDeclaration(operations, operations.modifiers, operations.name, operations.typeParameters, operations.heritageClauses, members);
}

/** `routes` (an operation's method and path) from openapi-typescript's `paths`, and `paths` derived from it. */
export function routesTable(paths: ts.InterfaceDeclaration): ts.Node[] {
  const rows: ts.PropertySignature[] = [];
  for (const item of paths.members) {
    if (!ts.isPropertySignature(item) || !item.type || !ts.isTypeLiteralNode(item.type)) throw new Error(`a path item the layout does not know: ${text(item)}`);
    for (const method of item.type.members) {
      const operation = ts.isPropertySignature(method) && method.type ? /^operations\["(\w+)"\]$/.exec(text(method.type))?.[1] : undefined;
      if (!operation || method.questionToken) throw new Error(`a path member the layout does not know: ${text(method)}`);
      const row = ts.setEmitFlags(f.createTupleTypeNode([lit(nameOf(method)), lit(nameOf(item))]), ts.EmitFlags.SingleLine);
      rows.push(f.createPropertySignature(undefined, operation, undefined, row));
    }
  }
  const table = f.createInterfaceDeclaration([f.createModifier(ts.SyntaxKind.ExportKeyword)], 'routes', undefined, undefined, rows);
  ts.addSyntheticLeadingComment(table, ts.SyntaxKind.MultiLineCommentTrivia, '* Each operation\'s method and path. ', true);
  const derived = ts.addSyntheticLeadingComment(
    f.createTypeAliasDeclaration(
      [f.createModifier(ts.SyntaxKind.ExportKeyword)],
      'paths',
      undefined,
      f.createTypeReferenceNode('PathsOf', [f.createTypeReferenceNode('routes'), f.createTypeReferenceNode('operations')]),
    ),
    ts.SyntaxKind.MultiLineCommentTrivia,
    '* The routes by path, as openapi-fetch reads them: each path\'s operations by method. ',
    true,
  );
  return [table, derived];
}

/** The operations' literals: each one line (a row of the table) when it fits in ROW_WIDTH characters. */
export const ROWS = new WeakSet<ts.TypeLiteralNode>();

/**
 * The queries, request bodies and answers that span lines, moved out of `operations` into `queries`, `bodies` and `answers` by
 * operation, so that each operation is a row: `updateUser: { parameters: ...; requestBody: JsonBody<bodies["updateUser"]>; ... }`.
 */
export function hoistBodies(operations: ts.InterfaceDeclaration): ts.Node[] {
  const bodies: ts.PropertySignature[] = [];
  const answers: ts.PropertySignature[] = [];
  const hoist = (into: ts.PropertySignature[], table: string, id: string, type: ts.TypeNode): ts.TypeNode => {
    into.push(f.createPropertySignature(undefined, id, undefined, type));
    return f.createIndexedAccessTypeNode(f.createTypeReferenceNode(table), lit(id));
  };
  const queries: ts.PropertySignature[] = [];
  const queryFields = new Map<string, [name: string, written: string][]>();
  // A query of more than a line goes to `queries`; one that is an earlier one but for some of its fields (a
  // `Type.Omit` in the routes) is written so: `Omit<queries["listEvents"], "user_id">`.
  const hoistQuery = (type: ts.TypeNode, id: string): ts.TypeNode => {
    if (!ts.isTypeReferenceNode(type) || !['InQuery', 'InPathAndQuery'].includes(text(type.typeName))) return type;
    const args = [...(type.typeArguments ?? [])];
    const query = args[args.length - 1]!;
    if (!ts.isTypeLiteralNode(query) || !multiLine(query)) return type;
    const fields = query.members.map((m) => text(m));
    const whole = [...queryFields].find(([, earlier]) => fields.length < earlier.length && fields.every((field) => earlier.some(([, written]) => written === field)));
    let reference: ts.TypeNode;
    if (whole) {
      const [earlierId, earlier] = whole;
      const left = earlier.filter(([, written]) => !fields.includes(written)).map(([name]) => name);
      reference = f.createTypeReferenceNode('Omit', [f.createIndexedAccessTypeNode(f.createTypeReferenceNode('queries'), lit(earlierId)), f.createUnionTypeNode(left.map(lit))]);
    } else {
      queryFields.set(id, query.members.map((m) => [nameOf(m), text(m)]));
      reference = hoist(queries, 'queries', id, query);
    }
    args[args.length - 1] = reference;
    return f.createTypeReferenceNode(type.typeName, args);
  };
  const wrapped = (type: ts.TypeNode | undefined, alias: string): ts.TypeNode | undefined =>
    type && ts.isTypeReferenceNode(type) && text(type.typeName) === alias && type.typeArguments?.length === 1 && multiLine(type.typeArguments[0]!) ? type.typeArguments[0] : undefined;
  const members = operations.members.map((op) => {
    if (!ts.isPropertySignature(op) || !op.type || !ts.isTypeLiteralNode(op.type)) return op;
    const id = nameOf(op);
    let answered = false;
    const parts = op.type.members.map((part) => {
      if (!ts.isPropertySignature(part) || !part.type) return part;
      if (nameOf(part) === 'parameters') return withType(part, hoistQuery(part.type, id));
      const body = nameOf(part) === 'requestBody' ? wrapped(part.type, 'JsonBody') : undefined;
      if (body) return withType(part, f.createTypeReferenceNode('JsonBody', [hoist(bodies, 'bodies', id, body)]));
      if (nameOf(part) !== 'responses' || !ts.isIntersectionTypeNode(part.type)) return part;
      const [statuses, ...rest] = part.type.types;
      if (!statuses || !ts.isTypeLiteralNode(statuses)) return part;
      const moved = statuses.members.map((answer) => {
        const json = ts.isPropertySignature(answer) && !answered ? wrapped(answer.type, 'Json') : undefined;
        if (!json) return answer;
        answered = true;
        return withType(answer as ts.PropertySignature, f.createTypeReferenceNode('Json', [hoist(answers, 'answers', id, json)]));
      });
      return withType(part, f.createIntersectionTypeNode([f.createTypeLiteralNode(moved), ...rest]));
    });
    const row = f.createTypeLiteralNode(parts);
    ROWS.add(row);
    return withType(op, row);
  });
  const table = (name: string, comment: string, rows: ts.PropertySignature[]): ts.Node =>
    ts.addSyntheticLeadingComment(
      f.createInterfaceDeclaration([f.createModifier(ts.SyntaxKind.ExportKeyword)], name, undefined, undefined, rows),
      ts.SyntaxKind.MultiLineCommentTrivia,
      `* ${comment} `,
      true,
    );
  return [
    f.updateInterfaceDeclaration(operations, operations.modifiers, operations.name, operations.typeParameters, operations.heritageClauses, members),
    table('queries', 'The query parameters of more than a line, by operation.', queries),
    table('bodies', 'The JSON request bodies of more than a line, by operation.', bodies),
    table('answers', 'The JSON answers of more than a line, by operation (its success answer).', answers),
  ];
}

/**
 * A record whose fields are, for MIN_SHARED or more, another larger record's to the letter (the routes build
 * it with `Type.Pick` of that one: `Me` of `User`) is written so: `Pick<components["schemas"]["User"], ...> & {...}`.
 */
const MIN_SHARED = 5;
export function pickShared(components: ts.InterfaceDeclaration): ts.InterfaceDeclaration {
  const members = components.members.map((group) => {
    if (nameOf(group) !== 'schemas' || !ts.isPropertySignature(group) || !group.type || !ts.isTypeLiteralNode(group.type)) return group;
    const records = group.type.members.filter(ts.isPropertySignature).filter((r) => r.type && ts.isTypeLiteralNode(r.type));
    const fieldsOf = (record: ts.PropertySignature) => (record.type as ts.TypeLiteralNode).members.map((m) => [nameOf(m), text(m)] as const);
    const shaped = group.type.members.map((record) => {
      if (!ts.isPropertySignature(record) || !records.includes(record)) return record;
      const own = fieldsOf(record);
      let best: { from: string; shared: string[] } | undefined;
      for (const other of records) {
        const theirs = new Set(fieldsOf(other).map(([, written]) => written));
        if (other === record || theirs.size <= own.length) continue;
        const shared = own.filter(([, written]) => theirs.has(written)).map(([name]) => name);
        if (shared.length >= MIN_SHARED && shared.length > (best?.shared.length ?? 0)) best = { from: nameOf(other), shared };
      }
      if (!best) return record;
      const rest = (record.type as ts.TypeLiteralNode).members.filter((m) => !best!.shared.includes(nameOf(m)));
      const picked = f.createTypeReferenceNode('Pick', [
        f.createIndexedAccessTypeNode(f.createIndexedAccessTypeNode(f.createTypeReferenceNode('components'), lit('schemas')), lit(best.from)),
        f.createUnionTypeNode(best.shared.map(lit)),
      ]);
      return withType(record, f.createIntersectionTypeNode([picked, f.createTypeLiteralNode(rest)]));
    });
    return withType(group, f.createTypeLiteralNode(shaped));
  });
  return f.updateInterfaceDeclaration(components, components.modifiers, components.name, components.typeParameters, components.heritageClauses, members);
}
