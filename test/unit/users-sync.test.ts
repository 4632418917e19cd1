/**
 * AuthUser's create against read-back, with the API and users_sync faked. The address is read once
 * before the first POST: a user there is not ours (refused, no POST; taken over only with `adopt`).
 * Absent then, a lost answer takes over the user found by address; not found, it creates again,
 * and a 409 on that try takes over; a 409 on the first try (a user made since) is never taken
 * over; without read-back, today's error.
 * And the setting that turns read-back off.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { NeonApiError, NeonNetworkError } from "../../src/client";
import { authUserInputs, userHandler } from "../../src/kinds/authUser";
import { parsedInputs } from "../../src/provider/kit";
import { resolveSettings } from "../../src/provider/settings";
import { fakeContext } from "./fake-context";
import { inRef } from "./refs";

const fake = vi.hoisted(() => ({ createUser: vi.fn(), byEmail: vi.fn(), problem: vi.fn() }));
vi.mock("../../src/provider/usersSync", () => ({
  liveUserByEmail: fake.byEmail,
  userById: vi.fn(),
  readBackProblem: fake.problem,
  userTableOf: () => "neon_auth.users_sync",
}));
const ctx = () => fakeContext({ createUser: fake.createUser });

const P = "p-unit";
// As the runtime hands them to create: parsed by the kind's rules, the place beside the integration.
const props = parsedInputs(authUserInputs, inRef({ projectId: P, integration: { authProviderProjectId: "a", createdAt: "t" }, email: "ada@example.com", name: "Ada", authProvider: "stack" }));
const lostAnswer = () => new NeonNetworkError({ method: "POST", path: "/projects/auth/user", attempts: 1, detail: "socket hang up", mayHaveActed: true });
const conflict = () =>
  new NeonApiError({ method: "POST", path: "/projects/auth/user", attempts: 1, status: 409, code: "", neonMessage: "email: exists", retryable: false, mayHaveActed: false });
const row = (id: string) => ({ id, email: "ada@example.com", name: "Ada", deleted: false });

beforeEach(() => {
  fake.createUser.mockReset();
  fake.byEmail.mockReset();
  fake.problem.mockReset();
});

describe("AuthUser create with read-back", () => {
  it("takes over the user a lost create made, found by address, without a second POST", async () => {
    fake.createUser.mockRejectedValueOnce(lostAnswer());
    fake.byEmail.mockResolvedValueOnce(null).mockResolvedValueOnce(row("u-1"));
    expect((await userHandler.create(props, ctx())).id).toBe("u-1");
    expect(fake.createUser).toHaveBeenCalledTimes(1);
    expect(fake.byEmail).toHaveBeenCalledWith(expect.anything(), { projectId: P }, "stack", "ada@example.com");
  });

  it("creates again when the lost try made nothing; a 409 on that try takes over the user then found", async () => {
    fake.createUser.mockRejectedValueOnce(lostAnswer()).mockResolvedValueOnce({ id: "u-2" });
    fake.byEmail.mockResolvedValueOnce(null).mockResolvedValueOnce(null);
    expect((await userHandler.create(props, ctx())).id).toBe("u-2");

    fake.createUser.mockRejectedValueOnce(lostAnswer()).mockRejectedValueOnce(conflict());
    fake.byEmail.mockResolvedValueOnce(null).mockResolvedValueOnce(null).mockResolvedValueOnce(row("u-3"));
    expect((await userHandler.create(props, ctx())).id).toBe("u-3");
  });

  it("never takes over a user that was there before the first try, lost answer or not", async () => {
    const refused = /AuthUser ada@example\.com of project p-unit already exists and was not made by this stack .* set `adopt: true`/;
    fake.byEmail.mockResolvedValueOnce(row("u-4"));
    await expect(userHandler.create(props, ctx())).rejects.toThrow(refused);
    expect(fake.createUser).toHaveBeenCalledTimes(0); // the service would answer 409

    fake.createUser.mockRejectedValueOnce(conflict()); // made between the read and the POST
    fake.byEmail.mockResolvedValueOnce(null);
    await expect(userHandler.create(props, ctx())).rejects.toThrow(refused);

    fake.byEmail.mockResolvedValueOnce(row("u-5"));
    expect((await userHandler.create({ ...props, adopt: true }, ctx())).id).toBe("u-5");
    expect(fake.createUser).toHaveBeenCalledTimes(1);
  });

  it("without read-back keeps the lost-answer error, with the reason", async () => {
    fake.createUser.mockRejectedValueOnce(lostAnswer());
    fake.byEmail.mockResolvedValue(undefined);
    fake.problem.mockResolvedValue("the database refused the connection");
    await expect(userHandler.create(props, ctx())).rejects.toThrow(
      /answer was lost, so the user may exist without this stack knowing its id, and it cannot be read back from neon_auth\.users_sync \(the database refused the connection\)/,
    );
    expect(fake.createUser).toHaveBeenCalledTimes(1);
  });
});

describe("neon-auth:readUsersFromDatabase", () => {
  const env = { NEON_API_KEY: "k" };
  it("is on by default, off with false, refused otherwise", () => {
    expect(resolveSettings(() => undefined, env).readUsersFromDatabase).toBe(true);
    expect(resolveSettings((n: string) => (n === "neon-auth:readUsersFromDatabase" ? "False" : undefined), env).readUsersFromDatabase).toBe(false);
    expect(() => resolveSettings((n: string) => (n === "neon-auth:readUsersFromDatabase" ? "no" : undefined), env)).toThrow(
      'neon-auth:readUsersFromDatabase must be true or false, got "no"',
    );
  });
});
