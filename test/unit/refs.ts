/**
 * A child's props as a test writes them (its place beside its integration's identity, as 0.2.0
 * recorded it) in the shape both faces send now: inside its integration's ref (provider/place.ts).
 */
import type { Props } from "../../src/provider/kit";
import { inputsOf, upgraded } from "../../src/provider/place";

export const inRef = (flat: Props): Props => inputsOf(upgraded({ parent: "either" }, flat));
