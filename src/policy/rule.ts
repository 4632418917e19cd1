/**
 * A rule of the pack, face-neutral: what it checks (a check over one resource, or over the whole
 * stack), its default enforcement level, the line of Neon's checklist it holds (for the rules
 * that come from it) and how to fix a violation. The README's table is generated from these
 * fields (`npm run gen`), and the pack (pack.ts) turns each into an @pulumi/policy policy.
 *
 * A message names the resource's fields, never their values: inputs reach a policy pack with
 * their secrets unwrapped (a webhook URL may carry a token, a client secret sits in a wrong field).
 */
import type { Kind } from "../provider/kindNames";
import type { StackView, Subject } from "./subjects";

export type Level = "advisory" | "mandatory";

/**
 * Neon's "Auth production checklist" as this pack read it: the page's Markdown in Neon's public
 * repository, at the commit whose lines the rules cite (front matter `updatedOn: 2026-07-10`).
 */
export const CHECKLIST = {
  page: "https://neon.com/docs/auth/production-checklist",
  source: "https://github.com/neondatabase/website/blob/077d99449bd141e1f5ee9c1b439b7fc1d8b4b08f/content/docs/auth/production-checklist.md",
  updatedOn: "2026-07-10",
} as const;

/** One item of the checklist: its number and title as Neon writes them, and its line in the source. */
export interface ChecklistItem {
  readonly item: number;
  readonly title: string;
  readonly line: number;
}

/** A JSON schema of a rule's own settings in Pulumi's policy config file. */
export interface ConfigSchema {
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** A setting of a config schema that lists names (stacks, clients): none unless given, none empty. */
export function nameList(description: string) {
  return { type: "array", items: { type: "string", minLength: 1 }, default: [], description } as const;
}

interface RuleBase {
  /** The policy's name (what the CLI prints and the config file keys on). */
  readonly name: string;
  /** One line: what the rule holds. */
  readonly description: string;
  readonly level: Level;
  readonly checklist?: ChecklistItem;
  /** The kinds it reads. */
  readonly applies: readonly Kind[];
  /** How to fix a violation, for the README (Markdown). */
  readonly fix: string;
  readonly configSchema?: ConfigSchema;
}

export interface ResourceRule extends RuleBase {
  readonly scope: "resource";
  /** The violations of one resource of a kind it applies to, as messages. */
  check(subject: Subject, config: Readonly<Record<string, unknown>>): string[];
}

export interface Finding {
  readonly urn: string;
  readonly message: string;
}

export interface StackRule extends RuleBase {
  readonly scope: "stack";
  check(stack: StackView, config: Readonly<Record<string, unknown>>): Finding[];
}

export type Rule = ResourceRule | StackRule;

/** How a message cites its checklist item. */
export function cites(item: ChecklistItem): string {
  return `Neon's Auth production checklist, item ${item.item} "${item.title}"`;
}

/** `Kind "name"`, as messages name a resource. */
export const named = (s: Subject) => `${s.kind} "${s.name}"`;
