import type { Generated, Selectable } from 'kysely';

// Custom tables (migration 0008). The rows live in run-time tables `t_<id>` outside this schema.

export interface CustomTablesTable {
  id: string;
  app_id: string;
  name: string;
  column_count: number;
  created_at: string;
  updated_at: string;
  /** Bumped with every change to the table's columns (0012): cached metadata is checked against it. */
  schema_version: Generated<number>;
}

export type CustomTableRow = Selectable<CustomTablesTable>;

export interface CustomColumnsTable {
  id: string;
  table_id: string;
  name: string;
  type: 'text' | 'int' | 'bool' | 'float' | 'date' | 'json';
  required: number;
  default_value: string | null; // JSON
  position: number;
  created_at: string;
}

export type CustomColumnRow = Selectable<CustomColumnsTable>;

export interface CustomTableUsageTable {
  app_id: string;
  used_bytes: number;
  table_count: number;
}
