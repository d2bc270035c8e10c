// The layout of the generated OpenAPI types (packages/api-types/src/openapi.ts). openapi-typescript writes
// every structure out in full: each path lists its eight methods (`put?: never` where there is none), each
// answer repeats `headers: { [name: string]: unknown }`, each operation lists its error statuses one line
// apiece, all with the same `components["responses"]["Error"]`. Those lines were two thirds of the file.
// This writes those shapes by name (`Json<T>`, `JsonBody<T>`, `InPath<P>`, ..., declared once in
// packages/api-types/src/layout.ts, and `Errors<S>`), leaves out what declares nothing (a method that is not
// there, path-level parameters that are all `never`), and writes a type literal that fits in WIDTH characters
// (an operation: ROW_WIDTH) and carries no comment on one line, as a person would.
//
// The types stay what they were: the same keys with the same types for every operation, path and schema
// (openapi-fetch sees a path without `put?: never` as one without a PUT, as before); the suite's
// typechecks of both SDKs, the console and the generated client hold it.
import ts from 'typescript';
import { f, nameOf, text, withType } from './openapi-ast.js';
import { hoistBodies, pickShared, referenceRepeats, ROWS, routesTable } from './openapi-references.js';

/**
 * The top of the generated file: the shapes the transform below writes references to (declared in
 * packages/api-types/src/layout.ts), and the error answers, which name the file's own `components`.
 */
export const PRELUDE = `import type { InPath, InPathAndQuery, InQuery, Json, JsonBody, NextCursor, NoParameters, PathsOf, Redirect } from './layout.js';

/** Error answers: each status given carries the one error body, \`{detail, code}\`. */
type Errors<S extends number> = { [K in S]: components["responses"]["Error"] };
`;

const WIDTH = 200;
/** An operation is a row of its table: parameters, body and answers, each a reference or a short type. */
const ROW_WIDTH = 300;
const ERROR = 'components["responses"]["Error"]';
const NEXT_CURSOR = '/** @description where the next page starts; null on the last page */ next_cursor: string | null;';
const REDIRECT = '{ headers: { /** @description where the browser goes next */ Location?: string; [name: string]: unknown; }; content?: never; }';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'parameters']);

const isOptionalNever = (member: ts.TypeElement): boolean =>
  ts.isPropertySignature(member) && member.questionToken !== undefined && member.type?.kind === ts.SyntaxKind.NeverKeyword;
const flat = (node: ts.Node): string => text(node).replace(/\s+/g, ' ');
const commentedHere = (node: ts.Node): boolean => (ts.getSyntheticLeadingComments(node)?.length ?? 0) > 0;
const commented = (node: ts.Node): boolean => {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (commentedHere(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
};

/** `{ content: { "application/json": T } }` (after `headers: { [name: string]: unknown }`, when `withHeaders`): its T. */
function jsonContent(type: ts.TypeLiteralNode, withHeaders: boolean): ts.TypeNode | undefined {
  const [headers, content] = withHeaders ? type.members : [undefined, ...type.members];
  if (type.members.length !== (withHeaders ? 2 : 1) || !content || nameOf(content) !== 'content' || !ts.isPropertySignature(content)) return undefined;
  if (withHeaders && (!headers || flat(headers) !== 'headers: { [name: string]: unknown; };')) return undefined;
  const media = content.type && ts.isTypeLiteralNode(content.type) && content.type.members.length === 1 ? content.type.members[0] : undefined;
  if (!media || nameOf(media) !== 'application/json' || !ts.isPropertySignature(media) || commentedHere(content) || commentedHere(media)) return undefined;
  return media.type;
}

/** Fastify's description of an answer that has none says nothing: left out. */
function withoutDefaultDescription(member: ts.TypeElement): ts.TypeElement {
  const comments = ts.getSyntheticLeadingComments(member);
  if (comments?.length === 1 && comments[0]!.text.trim() === '* @description Default Response') ts.setSyntheticLeadingComments(member, undefined);
  return member;
}

/** An operation's `responses`: the error statuses as one `Errors<...>`, each JSON answer as `Json<T>`. */
function responses(type: ts.TypeLiteralNode): ts.TypeNode {
  const errors: string[] = [];
  const rest: ts.TypeElement[] = [];
  for (const member of type.members) {
    if (ts.isPropertySignature(member) && member.type && text(member.type) === ERROR && !commentedHere(member)) errors.push(nameOf(member));
    else rest.push(withoutDefaultDescription(member));
  }
  if (!errors.length) return type;
  const alias = f.createTypeReferenceNode('Errors', [f.createUnionTypeNode(errors.map((status) => f.createLiteralTypeNode(f.createNumericLiteral(status))))]);
  return rest.length ? f.createIntersectionTypeNode([oneLineWhenItFits(f.createTypeLiteralNode(rest)), alias]) : alias;
}

function visitor(context: ts.TransformationContext): (node: ts.Node) => ts.Node {
  const visit = (node: ts.Node): ts.Node => {
    const inner = ts.visitEachChild(node, visit, context);
    if (ts.isPropertySignature(inner) && inner.type) {
      const name = nameOf(inner);
      const answer = ts.isTypeLiteralNode(inner.type) ? jsonContent(inner.type, true) : undefined;
      if (answer) return withType(inner, f.createTypeReferenceNode('Json', [pageOf(answer)]));
      if (flat(inner.type) === REDIRECT) return withType(inner, f.createTypeReferenceNode('Redirect'));
      const body = name === 'requestBody' && ts.isTypeLiteralNode(inner.type) ? jsonContent(inner.type, false) : undefined;
      if (body) return withType(inner, f.createTypeReferenceNode('JsonBody', [body]));
      if (name === 'responses' && ts.isTypeLiteralNode(inner.type)) return withType(inner, responses(inner.type));
      const parameters = name === 'parameters' && ts.isTypeLiteralNode(inner.type) ? parametersAlias(inner.type) : undefined;
      if (parameters) return withType(inner, parameters);
    }
    if (ts.isTypeLiteralNode(inner)) return oneLineWhenItFits(inner);
    return inner;
  };
  return visit;
}

/** The last pass: each type literal the references made, on one line when it fits. */
function oneLiners(context: ts.TransformationContext): (node: ts.Node) => ts.Node {
  const visit = (node: ts.Node): ts.Node => {
    const inner = ts.visitEachChild(node, visit, context);
    return ts.isTypeLiteralNode(inner) ? oneLineWhenItFits(inner) : inner;
  };
  return visit;
}

function oneLineWhenItFits(node: ts.TypeLiteralNode): ts.TypeLiteralNode {
  if (node.members.length === 0 || commented(node)) return node;
  ts.setEmitFlags(node, ts.EmitFlags.SingleLine);
  if (text(node).length > (ROWS.has(node) ? ROW_WIDTH : WIDTH)) ts.setEmitFlags(node, ts.EmitFlags.None);
  return node;
}

/** A page of records, `{ users: User[] } & NextCursor`, when the answer ends in the cursor as every page does. */
function pageOf(answer: ts.TypeNode): ts.TypeNode {
  if (!ts.isTypeLiteralNode(answer) || answer.members.length < 2) return answer;
  const last = answer.members[answer.members.length - 1]!;
  if (flat(last) !== NEXT_CURSOR) return answer;
  return f.createIntersectionTypeNode([oneLineWhenItFits(f.createTypeLiteralNode(answer.members.slice(0, -1))), f.createTypeReferenceNode('NextCursor')]);
}

/** `NoParameters`, `InPath<P>`, `InQuery<Q>` or `InPathAndQuery<P, Q>` for the parameters that are one of those, to the letter. */
function parametersAlias(type: ts.TypeLiteralNode): ts.TypeNode | undefined {
  const byName = new Map(type.members.map((m) => [nameOf(m), m]));
  if (type.members.length !== 4 || !['query', 'header', 'path', 'cookie'].every((k) => byName.has(k)) || commentedHere(type)) return undefined;
  const given = type.members.filter((m) => !isOptionalNever(m)) as ts.PropertySignature[];
  if (given.length === 0) return f.createTypeReferenceNode('NoParameters');
  if (given.some((m) => !m.type || commentedHere(m))) return undefined;
  const path = given.find((m) => nameOf(m) === 'path' && !m.questionToken);
  const query = given.find((m) => nameOf(m) === 'query' && m.questionToken);
  if (given.length === 1 && path) return f.createTypeReferenceNode('InPath', [path.type!]);
  if (given.length === 1 && query) return f.createTypeReferenceNode('InQuery', [query.type!]);
  if (given.length === 2 && path && query) return f.createTypeReferenceNode('InPathAndQuery', [path.type!, query.type!]);
  return undefined;
}

/** A path item without the methods it does not have, nor path-level parameters that are all `never`. */
function pathItem(member: ts.TypeElement, summaries: Map<string, ts.SynthesizedComment[]>): ts.TypeElement {
  if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeLiteralNode(member.type)) return member;
  const kept = member.type.members.filter((m) => {
    if (!METHODS.has(nameOf(m))) return true;
    if (isOptionalNever(m)) return false;
    const type = ts.isPropertySignature(m) ? m.type : undefined;
    return !(nameOf(m) === 'parameters' && type && ts.isTypeLiteralNode(type) && type.members.every(isOptionalNever));
  });
  // The summary goes with the operation, where `Ok<'getUser'>` and the SDKs look; the path lists its methods.
  for (const method of kept) {
    const operation = ts.isPropertySignature(method) && method.type ? /^operations\["(\w+)"\]$/.exec(text(method.type))?.[1] : undefined;
    const comments = ts.getSyntheticLeadingComments(method);
    if (operation && comments) {
      summaries.set(operation, comments);
      ts.setSyntheticLeadingComments(method, undefined);
    }
  }
  return withType(member, f.createTypeLiteralNode(kept));
}

function operation(member: ts.TypeElement, summaries: Map<string, ts.SynthesizedComment[]>): ts.TypeElement {
  const summary = summaries.get(nameOf(member));
  return summary ? ts.setSyntheticLeadingComments(member, summary) : member;
}

/** openapi-typescript's nodes in the layout above. */
export function compactLayout(nodes: ts.Node[]): ts.Node[] {
  const summaries = new Map<string, ts.SynthesizedComment[]>();
  const members = (name: string, node: ts.Node, each: (member: ts.TypeElement, summaries: Map<string, ts.SynthesizedComment[]>) => ts.TypeElement): ts.Node =>
    ts.isInterfaceDeclaration(node) && node.name.text === name
      ? f.updateInterfaceDeclaration(node, node.modifiers, node.name, node.typeParameters, node.heritageClauses, node.members.map((m) => each(m, summaries)))
      : node;
  const shaped = nodes.map((node) => members('paths', node, pathItem)).map((node) => members('operations', node, operation));
  return shaped
    .map((node) => ts.transform(node, [visitor]).transformed[0]!)
    .flatMap((node) => {
      if (!ts.isInterfaceDeclaration(node)) return [node];
      if (node.name.text === 'paths') return routesTable(node);
      if (node.name.text === 'operations') return hoistBodies(referenceRepeats(node));
      if (node.name.text === 'components') return [pickShared(node)];
      return [node];
    })
    .map((node) => ts.transform(node, [oneLiners]).transformed[0]!);
}
