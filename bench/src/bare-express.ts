/**
 * The yardstick: a bare Express 5 app answering the service's create and get routes with a constant JSON
 * body (parsing the request body as a real app would), in a process of its own.
 */
import express from "express";

const SESSION = {
  id: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  status: "created",
  room_name: "dhs-3fa85f64-5717-4562-b3fc-2c963f66afa6",
  rtc_url: "wss://livekit.example.net",
  participant_token: "eyJhbGciOiJIUzI1NiJ9.eyJ2aWRlbyI6eyJyb29tSm9pbiI6dHJ1ZX19.c2lnbmF0dXJl",
  created_at: "2026-11-22T09:15:00.000Z",
  started_at: null,
  ended_at: null,
};

const app = express();
app.use(express.json());
app.post("/v1/sessions", (_req, res) => {
  res.status(201).json(SESSION);
});
app.get("/v1/sessions/:id", (_req, res) => {
  res.json(SESSION);
});
const server = app.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
