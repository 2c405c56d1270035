'use strict';
// The peer's game, for bench/peer/driver.js: a small draw-and-discard card game for
// two, far smaller than Tranca. Each turn is two moves, as the most common Tranca
// turn: draw the top card of the stock, then discard one card of the hand (which
// ends the turn). The game ends when the stock runs out. The deck is shuffled by
// boardgame.io's seeded random, on the server.

const HAND = 11;
const DECK = 104;

const DrawDiscard = {
  name: 'draw-discard',
  setup: ({ random }) => {
    const deck = random.Shuffle(Array.from({ length: DECK }, (_, i) => i));
    return {
      hands: [deck.splice(0, HAND), deck.splice(0, HAND)],
      stock: deck,
      pile: [],
      drawn: false,
    };
  },
  turn: { minMoves: 2, maxMoves: 2 },
  // client: false: a move is applied by the server only, and the client sees it in
  // the server's answer (so the driver times what the server acknowledged).
  moves: {
    draw: { client: false, move: ({ G, ctx }) => {
      if (G.drawn || G.stock.length === 0) return 'INVALID_MOVE';
      G.hands[Number(ctx.currentPlayer)].push(G.stock.pop());
      G.drawn = true;
      return undefined;
    } },
    discard: { client: false, move: ({ G, ctx, events }, index) => {
      const hand = G.hands[Number(ctx.currentPlayer)];
      if (!G.drawn || !(index >= 0 && index < hand.length)) return 'INVALID_MOVE';
      G.pile.push(hand.splice(index, 1)[0]);
      G.drawn = false;
      events.endTurn();
      return undefined;
    } },
  },
  endIf: ({ G }) => (G.stock.length === 0 && !G.drawn ? { draw: true } : undefined),
};

module.exports = { DrawDiscard };
