import { z } from "zod";
import { isNotFound, redactText } from "../client";
import { email, portInput, senderName, smtpHost, smtpPassword, smtpUsername, type EmailServer as ApiEmailServer, type UpdateEmailServerRequest } from "../schemas";
import type { Placed } from "../provider/place";
import type { Context } from "../provider/context";
import { notOwned } from "../provider/converge";
import { inputRules, halfMade, compact, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { adoptSwitch, input, inputsOf } from "../provider/declaration";
import { childId, generationOf, placeOf, splitChildId, type Scope } from "../provider/generation";
import { childPlace, childFields, deleteUnlessHidden, despiteIntegration, explainMissingIntegration, generationRules, parentOf, type IntegrationIdentity } from "../provider/parent";
import { placeholder } from "../provider/placeholders";

const KIND = "EmailServer";
const SMTP_FIELDS = ["host", "port", "username", "password", "senderEmail", "senderName"] as const;

const FOR_STANDARD = "for `standard`";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const emailServerInputs = z
  .strictObject({
    ...childPlace,
    type: input(z.enum(["shared", "standard"], { message: 'must be "shared" or "standard"' }), {
      doc: "`shared` (Neon's mail server) or `standard` (your SMTP server; all fields below required).",
      outputDoc: "`shared` (Neon's mail server) or `standard` (yours).",
      shown: '`"shared"` | `"standard"`',
    }),
    host: input(smtpHost.optional(), { doc: "SMTP host name or IP address (required for `standard`).", shown: "hostname", requiredWhen: FOR_STANDARD }),
    port: input(portInput.optional(), { doc: "SMTP port, 1 to 65535 (required for `standard`).", shown: "integer 1–65535", requiredWhen: FOR_STANDARD }),
    username: input(smtpUsername.optional(), { doc: "SMTP user name (required for `standard`).", shown: "string", requiredWhen: FOR_STANDARD }),
    password: input(smtpPassword.optional(), { doc: "SMTP password (kept secret in state).", shown: "string", requiredWhen: FOR_STANDARD }),
    senderEmail: input(z.string().trim().pipe(email).optional(), { doc: "Address the mail is sent from (required for `standard`).", shown: "email address", requiredWhen: FOR_STANDARD }),
    senderName: input(senderName.optional(), { doc: "Display name the mail is sent from (required for `standard`).", shown: "string", requiredWhen: FOR_STANDARD }),
    testRecipient: input(z.string().trim().pipe(email).optional(), {
      only: "NeonAuth",
      doc: "Opt-in check (type `standard`): after each create or update that changes the SMTP settings, Neon sends a test mail here (`POST …/email_provider/test`), and the update fails with Neon's error message when the test fails.",
      outputDoc: "Where the opt-in SMTP test mail goes (NeonAuth).",
      shown: "email address; with `type: \"standard\"`",
      absent: "no test",
    }),
    adopt: adoptSwitch("Take over an SMTP configuration that is already set (by hand or by another stack) instead of failing: this stack then overwrites it, and sets it back to shared on destroy. Default false.", "Whether an SMTP configuration set elsewhere was (or may be) taken over at creation."),
  })
  .superRefine((v, ctx) => {
    generationRules(v, ctx, ["testRecipient"]);
    if (v.testRecipient !== undefined && v.type === "shared") {
      ctx.addIssue({ code: "custom", path: ["testRecipient"], message: 'is accepted only with type "standard": Neon tests only your own SMTP server' });
    }
    for (const field of SMTP_FIELDS) {
      if (v.type === "standard" && v[field] === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: 'is required when type is "standard"' });
      }
      if (v.type === "shared" && v[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: 'must not be set when type is "shared"' });
      }
    }
  }, despiteIntegration);
type Inputs = Placed<z.infer<typeof emailServerInputs>>;


const INPUTS = inputsOf(emailServerInputs);

function requestOf(inputs: Inputs): UpdateEmailServerRequest {
  if (inputs.type === "shared") return { type: "shared" };
  return {
    type: "standard",
    host: inputs.host!,
    port: inputs.port!,
    username: inputs.username!,
    password: inputs.password!,
    sender_email: inputs.senderEmail!,
    sender_name: inputs.senderName!,
  };
}

/**
 * Outputs from what the server holds; the password, which reads may omit, stays as set. The
 * branch-scoped API always answers it empty (write-only): it is never compared with the service.
 */
function propsOf(where: Scope, integration: IntegrationIdentity | undefined, server: ApiEmailServer, password: string | undefined, testRecipient?: string): Props {
  if (server.type === "shared") return compact({ ...where, integration, type: "shared" });
  // A provider this package cannot manage (set in the console): drift, under Neon's name for it.
  if (server.type === "other") return compact({ ...where, integration, type: server.name });
  return compact({
    ...where,
    integration,
    type: "standard",
    host: server.host,
    port: server.port,
    username: server.username,
    password: generationOf(where).readsSmtpPassword ? (server.password ?? password) : password,
    senderEmail: server.sender_email,
    senderName: server.sender_name,
    testRecipient,
  });
}

const scope = (inputs: Scope): Scope => compact({ projectId: inputs.projectId, branchId: inputs.branchId });

const calls = (ctx: Context, where: Scope) => generationOf(where).calls(ctx, where).emailServer;

async function apply(ctx: Context, inputs: Inputs): Promise<Props> {
  const where = scope(inputs);
  let server: ApiEmailServer;
  try {
    server = await calls(ctx, where).set(requestOf(inputs));
  } catch (err) {
    throw explainMissingIntegration(KIND, inputs.projectId, err);
  }
  const saved = (testRecipient?: string) => ({ ...propsOf(where, inputs.integration, server, inputs.password, testRecipient), ...compact({ adopt: inputs.adopt }) });
  if (inputs.testRecipient !== undefined && inputs.type === "standard") {
    // Saved, but the test failed: recorded without the password (which Neon never shows), so the
    // next `up` writes the settings again and sends the test again.
    await smtpTest(ctx, inputs).catch((err: Error) => {
      throw halfMade(err.message, OBJECT.key(inputs)!, { ...saved(inputs.testRecipient), password: undefined });
    });
  }
  return saved(inputs.testRecipient);
}

/** The opt-in check: Neon sends a test mail through the saved SMTP settings. */
async function smtpTest(ctx: Context, inputs: Inputs): Promise<void> {
  const r = await calls(ctx, scope(inputs)).test(inputs.testRecipient!);
  if (r.success !== false) return;
  const said = redactText(r.error_message ?? "no reason given", [inputs.password ?? ""]);
  throw new Error(
    `${KIND}: the SMTP settings were saved, but Neon's test mail to ${inputs.testRecipient} through ${inputs.host}:${inputs.port} failed: ${said}. ` +
      "Fix the settings (or the server) and run `pulumi up` again; the update is retried then.",
  );
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: [], what: "the email server of one integration", key: (i) => childId(i as Scope, "email-server") };

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const emailServerHandler: Handler<Inputs> = {
  ...inputRules(KIND, emailServerInputs, (olds, news) => childFields(olds, news, INPUTS), { deleteBeforeReplace: true }),

  // PATCH sets the whole configuration, so a lost answer is safely replayed by the client. The one
  // question is ownership: Neon's default (shared) is nobody's; an SMTP server someone set is theirs.
  async create(inputs, ctx) {
    const where = scope(inputs);
    if (!inputs.adopt) {
      const current = await calls(ctx, where).get().catch((err: unknown) => {
        if (isNotFound(err)) return undefined; // no integration: the write below says so
        throw err;
      });
      if (current?.type === "standard") {
        throw notOwned(`${KIND}: the email server of ${placeOf(where)} (SMTP ${current.host}:${current.port})`, {
          adopt: "set `adopt: true` on this EmailServer to take it over on purpose (its settings are then overwritten, and the other owner's are lost)",
        });
      }
    }
    return { id: OBJECT.key(inputs)!, outs: await apply(ctx, inputs) };
  },

  async read(id, props, ctx) {
    const { key: _, ...where } = splitChildId(KIND, id, "email-server");
    // The project answered just now, so a 404 of the read means the integration went meanwhile.
    const parent = await parentOf(ctx, KIND, { ...props, ...where });
    if (!parent) return {};
    try {
      const server = await calls(ctx, where).get();
      // Nothing recorded (an import by id): the password is a placeholder for the program's configuration.
      const password = props.type === undefined ? placeholder("smtpPassword") : props.password;
      const current = { ...propsOf(where, parent.identity, server as ApiEmailServer, password, props.testRecipient), ...compact({ adopt: props.adopt }) };
      return { id, props: current, inputs: current };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(_id, olds, inputs, ctx) {
    // Only the integration's identity changed (state written before it was recorded): no request.
    const settings = ["type", ...SMTP_FIELDS] as const;
    if (settings.every((f) => olds[f] === inputs[f])) return { outs: compact({ ...olds, integration: inputs.integration, testRecipient: inputs.testRecipient, adopt: inputs.adopt }) };
    return { outs: await apply(ctx, inputs) };
  },

  async delete(id, _props, ctx) {
    const { key: _, ...where } = splitChildId(KIND, id, "email-server");
    // No auth on the project or branch: there is no email server left to reset.
    await deleteUnlessHidden(ctx, KIND, where, () => calls(ctx, where).set({ type: "shared" }));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const emailServerKind: KindDeclaration = {
  kind: KIND,
  doc:
    "The email server that sends verification and password-reset mail. `standard` uses your SMTP\n" +
    "server; `shared` uses Neon's. Create and update set the configuration; delete sets it back\n" +
    "to shared. Id (for `get` and `importFile`):\n" +
    "`<projectId>/email-server`.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    "const cfg = new pulumi.Config();\n" +
    'new EmailServer("smtp", { integration: auth, type: "standard", host: "smtp.example.com", port: 587,\n' +
    '  username: "apikey", password: cfg.requireSecret("smtpPassword"),\n' +
    '  senderEmail: "auth@example.com", senderName: "Example" });\n' +
    "```",
  parent: "either",
  withProvider: false,
  inputs: INPUTS,
  id: "`<projectId>/email-server`; on a `NeonAuth` `<projectId>/<branchId>/email-server`.",
  importable: true,
  schema: emailServerInputs,
  object: OBJECT,
  handler: emailServerHandler,
};

