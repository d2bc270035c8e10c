// The TypeScript-AST helpers both halves of the generated types' layout use (tools/openapi-layout.ts,
// tools/openapi-references.ts): one printer, a member's name, a member with another type.
import ts from 'typescript';

export const f = ts.factory;
const printer = ts.createPrinter({ removeComments: false });
const scratch = ts.createSourceFile('layout.ts', '', ts.ScriptTarget.ESNext, false, ts.ScriptKind.TS);

/** The node as the generated file prints it. */
export const text = (node: ts.Node): string => printer.printNode(ts.EmitHint.Unspecified, node, scratch);

/** A member's name (`get`, `"application/json"`, `200`); '' for an index signature. */
export const nameOf = (member: ts.TypeElement): string =>
  member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) || ts.isNumericLiteral(member.name)) ? member.name.text : '';

/** The member with `type` instead of its own, its comments kept. */
export const withType = (member: ts.PropertySignature, type: ts.TypeNode): ts.PropertySignature =>
  ts.setSyntheticLeadingComments(f.updatePropertySignature(member, member.modifiers, member.name, member.questionToken, type), ts.getSyntheticLeadingComments(member));
