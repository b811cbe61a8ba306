// What the client takes from Discord's Embedded App SDK; bundled by build.sh into ../client/discord-sdk.js.
export { DiscordSDK } from "@discord/embedded-app-sdk";
