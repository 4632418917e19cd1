/**
 * What the emulator's newer-Neon mode adds to every new integration (src/emulator/README.md),
 * written out here rather than taken from the code under test: the emulator's contract test and
 * the package's e2e test hold both to these same facts.
 */
export const FOREIGN_CLIENT = {
  client_id: "6e657765722d6e656f6e2d636c69656e",
  name: "Registered outside the stack",
  type: "dynamic",
  redirect_uris: ["https://agent.newer-neon.example.com/callback"],
  resources: [],
  skip_consent: false,
  disabled: false,
};
export const FOREIGN_BRANCH_PROVIDER = { id: "apple", type: "enterprise", client_id: "com.example.newer-neon.signin" };
export const FOREIGN_PROJECT_PROVIDER = { id: "apple", type: "enterprise" };
export const FOREIGN_DOMAIN = "https://console.newer-neon.example.com";
