"""Scenario tests for the Brazilian presets ``tranca-000``, ``tranca-001`` and ``tranca-004``:
the rules of the rule documents 000, 001 and 004 (see docs/RULES.md §1), and the
decisions of docs/RULES.md §4 where a document is silent.

The three presets play almost the same game, so one suite checks them, driven by
``PRESETS``, a table with one entry per preset:

- ``rules``: every rule the suite checks for that preset, with the passage of the
  preset's document it rests on (``NNN «passage»``, quoted word for word) or the
  decision taken where the document is silent (``decision N``). A test is named
  after its rule (``test_going_out_needs_a_clean_canastra`` checks the rule "going
  out needs a clean canastra") and runs for exactly the presets whose table holds
  that rule: a rule only one document has is checked for that preset only, and a
  rule a document has differently has its own name in that preset's entry.
- the values a test expects where presets could differ (player counts, card value,
  canastra, batida and red-three points, the morto penalty), each with its passage.

The passages are checked against the documents by
tests/rules/test_rules_document.py (``quoted_passages`` below lists them).

Positions are built from text with ``build_position``: hands, melds ``(side, cards)``,
pile and stock bottom to top.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import pytest

from tranca.rules.cards import card_text, full_deck, parse_card, parse_cards
from tranca.rules.engine import legal_moves, new_deal, play
from tranca.rules.errors import Reason, RuleViolation
from tranca.rules.match import DRAWN, Match, decide
from tranca.rules.moves import move_text, parse_move
from tranca.rules.position import build_position
from tranca.rules.presets import Rules, make_rules
from tranca.rules.scoring import score_deal
from tranca.rules.state import NOBODY, DealState
from tranca.rules.views import seat_view, visible_cards

# ----- the table ------------------------------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Quoted(Generic[T]):
    """A value a test expects, with the passage (or decision) it rests on."""

    value: T
    cite: str


@dataclass(frozen=True)
class Preset:
    """One preset: its document, the values its tests expect, and the rules it has."""

    name: str
    document: str  # the document's short name, e.g. "000"
    player_counts: Quoted[tuple[int, ...]]
    card_value: Quoted[int]  # every card, in the table and in the hand
    clean_canastra_bonus: Quoted[int]
    dirty_canastra_bonus: Quoted[int]
    batida_bonus: Quoted[int]
    red_three_value: Quoted[int]  # plus with a canastra, minus without
    morto_penalty: Quoted[int]
    rules: Mapping[str, str]  # rule (the name of its test) -> the passage it rests on

    @property
    def knobs(self) -> Rules:
        return make_rules(self.name)

    def citations(self) -> list[tuple[str, str]]:
        """Every citation of the entry: (what it is for, the citation)."""
        values = [
            ("player counts", self.player_counts.cite),
            ("card value", self.card_value.cite),
            ("clean canastra bonus", self.clean_canastra_bonus.cite),
            ("dirty canastra bonus", self.dirty_canastra_bonus.cite),
            ("batida bonus", self.batida_bonus.cite),
            ("red three value", self.red_three_value.cite),
            ("morto penalty", self.morto_penalty.cite),
        ]
        return values + list(self.rules.items())


RED_THREE_LAID = "Três Vermelho - Deve ser baixado sozinho na mesa"

TRANCA_000 = Preset(
    name="tranca-000",
    document="000",
    player_counts=Quoted(
        (2, 4), "000 «Número de Jogadores: 2 ou 4 jogadores (4 - parceria de 2 duplas).»"
    ),
    card_value=Quoted(10, "000 «Tabela de pontos» and 000 «10 pontos por carta.»; decision 18"),
    clean_canastra_bonus=Quoted(
        200,
        "decision 33 (000 names no canastra value, only 000 «canastras existentes, e na"
        " seqüência somar cada carta individualmente»)",
    ),
    dirty_canastra_bonus=Quoted(100, "decision 33"),
    batida_bonus=Quoted(
        100, "000 «Pontos de batida – o jogador ou dupla que bateu recebe 100 pontos pela»"
    ),
    red_three_value=Quoted(
        100,
        "000 «ganhará mais 100 pontos se possuir uma canastra. Caso não possua nenhuma»"
        " and 000 «canastra será deduzido 100 pontos por 3 vermelho.»",
    ),
    morto_penalty=Quoted(100, "000 «comprado o morto então deverá deduzir 100 pontos do total.»"),
    rules={
        # players and partnerships
        "only as many players as the document says may play": (
            "000 «Esta modalidade de jogo pode ser jogada com 2 ou 4 jogadores.»"
        ),
        "with two players each melds for themselves": (
            "000 «No jogo de 2 jogadores cada um têm suas próprias cartas, possuem seus» and"
            " 000 «próprios jogos na mesa e joga-se um contra o outro.»"
        ),
        "with two players each has a morto of their own": (
            "000 «cada jogador têm direito de comprar 1 morto.»"
        ),
        "with four players partners sit opposite and share their melds": (
            "000 «No jogo de 4 jogadores cada jogador de cada dupla têm suas próprias cartas»,"
            " 000 «mas compartilham os jogos do parceiro que foram baixados na mesa.» and"
            " 000 «jogador fica posicionado da seguinte forma ( jogador 1, jogador 2, parceiro"
            " do»; decision 31"
        ),
        "with four players each pair shares one morto": (
            "000 «apenas um jogador de cada dupla pode comprar o morto.» and 000 «Batida – é"
            " quando o jogador (ou seu parceiro) já comprou o morto e as cartas»; decision 31"
        ),
        "with four players partners lay red threes for the pair": (
            "decision 31 (000 is silent on whose red threes they are; partners share what is"
            " on the table: 000 «mas compartilham os jogos do parceiro que foram baixados na"
            " mesa.»)"
        ),
        "with four players two pairs score with both hands deducted": (
            "000 «Jogos da mesa – cada jogador ou dupla deverá somar primeiramente todas as»"
            " and 000 «Dedução das cartas da mão: cada carta restante na mão de dos jogadores»"
        ),
        # the deal
        "the deal is 104 cards 11 to each player and two mortos of 11": (
            "000 «Total de cartas no Jogo: dois baralhos com 52 cartas, totalizando 104"
            " cartas.», 000 «Início da partida: são distribuídas 11 cartas para cada jogador.»"
            " and 000 «Morto – São dois montes de cartas ( 11 em cada monte ) localizados à»"
        ),
        "the pile starts empty and the first player draws": (
            "000 «O primeiro jogador deverá obrigatoriamente comprar do monte e caso deseje»"
            " and 000 «O próximo jogador poderá comprar do monte ou comprar o lixo.»;"
            " decision 22; decision 25"
        ),
        # melds
        "melds are runs of one suit or sets of one rank": (
            "000 «cartas deverão ser do mesmo nipe e estar na seqüência ou se as cartas forem»"
            " and 000 «iguais, do tipo charuto. ( exemplo 4,4,4 ).»"
        ),
        "a meld of three grows card by card": (
            "000 «Em seguida poderá criar novos jogos, inserir cartas em jogos existentes e»;"
            " decision 29"
        ),
        "runs go from four to ace with the ace high only": (
            "000 «Sequência da Tranca – é a ordem das cartas para se criar um jogo de tranca"
            " é:» and 000 «4,5,6,7,8,9,10,J,Q,K,A»; decision 5"
        ),
        "threes are never melded": (
            "000 «Ao contrário do buraco o jogo de tranca não permite usar os 3 como fazendo»"
            " and 000 «partes de um jogo.»; decision 5"
        ),
        "twos are wild one per meld": (
            "000 «com o número 2 é um coringa e serve para substituir uma outra carta do"
            " jogo.» and 000 «mesmo naipe mas que têm um coringa substituindo uma carta da"
            " seqüência.»; decision 4"
        ),
        "a meld of wilds alone is not a meld": (
            "000 «com o número 2 é um coringa e serve para substituir uma outra carta do"
            " jogo.»; decision 4"
        ),
        "a two of the runs suit is still a wild": (
            "000 «Se o coringa estiver localizado entre um As e um três este não é"
            " considerado» and 000 «um coringa e sim uma carta normal da seqüência.», which"
            " has no effect with runs of 4..A: decision 5"
        ),
        "a natural may not take a wilds place": "decision 26 (000 is silent on replacing a wild)",
        # canastras
        "a run of seven is a canastra clean without a wild dirty with one": (
            "000 «Canastra limpa – é um Jogo que contêm 7 ou mais cartas na sequência, do»,"
            " 000 «mesmo naipe e sem curingas substituindo outra carta.» and 000 «mesmo naipe"
            " mas que têm um coringa substituindo uma carta da seqüência.»"
        ),
        "a set never becomes a canastra": (
            "000 «Canastra limpa – é um Jogo que contêm 7 ou mais cartas na sequência, do»;"
            " decision 7"
        ),
        # the pile
        "taking the pile puts its top card on an own meld and the rest in the hand": (
            "000 «do lixo deverá obrigatoriamente usar a 1º carto do lixo para fazer um jogo»"
            " and 000 «somente depois disso ele poderá recuperar as outras cartas que estão na"
            " lixeira.»; decision 8"
        ),
        "taking the pile makes a new meld of its top card and two hand cards": (
            "000 «do lixo deverá obrigatoriamente usar a 1º carto do lixo para fazer um jogo»;"
            " decision 8; decision 29"
        ),
        "the pile cannot be taken unless its top card is used": (
            "000 «jogo. Na tranca o jogador somente pode comprar o lixo se usar a 1º carta do»"
            " and 000 «monte para realizar um jogo.» (the pile, A2); decision 8"
        ),
        "a black three on top locks the pile for the next player only": (
            "000 «possuir um destes têm o poder de trancar o lixo, ou seja, quem descartar um"
            " 3» and 000 «preto no lixo significa que o próximo jogador a jogar não poderá"
            " comprar do lixo.»; decision 2"
        ),
        "black threes left in hand count against the side": (
            "000 «Ao contrário do buraco o jogo de tranca não permite usar os 3 como fazendo»,"
            " 000 «Dedução das cartas da mão: cada carta restante na mão de dos jogadores» and"
            " 000 «10 pontos por carta.»; decision 13"
        ),
        # red threes
        "a red three drawn is laid down at once and replaced": (
            "000 «quem possuir um destes deve coloca-lo na mesa (individualmente)»; decision 1"
        ),
        "dealt red threes are laid at the start of their holders first turn": (
            "000 «quem possuir um destes deve coloca-lo na mesa (individualmente)»; decision 1"
        ),
        "a red three in a morto taken by a direct batida is laid and replaced": (
            "000 «quem possuir um destes deve coloca-lo na mesa (individualmente)»; decision 1"
        ),
        "red threes count plus with any canastra even a dirty one": (
            "000 «tiver 1 ou mais 3 vermelhos e ao menos uma canastra em seu jogo ganhará 100»"
            " and 000 «ganhará mais 100 pontos se possuir uma canastra.»; decision 19"
        ),
        "red threes count minus without a canastra": (
            "000 «ganhará mais 100 pontos se possuir uma canastra. Caso não possua nenhuma»"
            " and 000 «canastra será deduzido 100 pontos por 3 vermelho.»"
        ),
        "red threes count minus beside a set of seven which is no canastra": (
            "000 «canastra será deduzido 100 pontos por 3 vermelho.» and 000 «Canastra limpa –"
            " é um Jogo que contêm 7 ou mais cartas na sequência, do»; decision 7"
        ),
        # the morto and the batida
        "a direct batida by melding takes the morto and plays on without drawing": (
            "000 «O jogo segue este fluxo até que um jogador fique sem cartas na mão, quando»,"
            " 000 «isso ocorrer ele deverá comprar um dos mortos disponíveis.» and 000 «uma"
            " carta no lixo, esta é considerada uma batida direta caso contrário é»;"
            " decision 10"
        ),
        "a direct batida by taking the pile takes the morto and plays on": (
            "000 «O morto deverá ser comprado por um jogador caso as cartas da mão acabem, e»"
            " and 000 «houver morto disponível para ele.»; decision 10"
        ),
        "an indirect batida takes the morto to be used next turn": (
            "000 «considerada uma batida indireta.» and 000 «Se um jogador comprou um morto"
            " mas não teve chance de utiliza-lo (pois»; decision 10; decision 1"
        ),
        "a morto taken by an indirect batida and not used is paid as not taken": (
            "000 «Se um jogador comprou um morto mas não teve chance de utiliza-lo (pois» and"
            " 000 «alguém bateu antes ) então este também deverá ser deduzido.»; decision 11"
        ),
        "going out needs a clean canastra": (
            "000 «- Para bater é necessário ter pelo menos uma canastra limpa, se o jogador"
            " não» and 000 «possuir então não poderá bater até que consiga criar.»;"
            " decision 14"
        ),
        "the canastra made with the last card lets the player go out": (
            "000 «possuir então não poderá bater até que consiga criar.»"
        ),
        "a player who cannot go out must keep a card to discard": (
            "000 «- Para bater é necessário ter pelo menos uma canastra limpa, se o jogador"
            " não»; decision 15"
        ),
        # scoring
        "the scoring breakdown of a deal with a batida": (
            "000 «Jogos da mesa – cada jogador ou dupla deverá somar primeiramente todas as»,"
            " 000 «canastras existentes, e na seqüência somar cada carta individualmente»,"
            " 000 «Pontos de batida – o jogador ou dupla que bateu recebe 100 pontos pela»,"
            " 000 «Dedução por não comprar o morto – caso um jogador ou dupla não tenha» and"
            " 000 «tabela abaixo) e o total de pontos deverão ser deduzidos do total.»"
        ),
        "every card is worth the same": "000 «10 pontos por carta.»; decision 18",
        "the stock running out ends the deal without a batida": (
            "000 «- Se nenhum jogador bateu e as cartas do monte acabarem, então o jogo será»"
            " and 000 «finalizado e os pontos serão contados.»; decision 16"
        ),
        # the match
        "a match is one deal": (
            "000 «Se o jogo for por partida, ao final da partida» and 000 «checa-se quem têm o"
            " maior número de pontos e este vence»; decision 21"
        ),
        "a tie in the one deal is a draw": (
            "000 «checa-se quem têm o maior número de pontos e este vence»; decision 21"
        ),
        "a match to a target score by override": (
            "000 «jogo for por pontos de batida os jogadores deverão jogar tantas vezes"
            " forem», 000 «necessárias para alcançar ou superar os pontos de batida, o primeiro"
            " jogador ou», 000 «dupla a alcançar vence. Caso todos os jogadores ultrapassem os"
            " pontos de» and 000 «batida, o jogador ou dupla que tiver a maior pontuação"
            " acumulada vence.»; decision 21"
        ),
        # what a seat sees
        "only the top card of the pile is visible": (
            "000 «Lixo – São as cartas que ficam ao lado direito do monte com a face virada"
            " para», 000 «Mais uma peculiaridade do jogo de tranca é que somente a 1º carta do"
            " morto é», 000 «visível, as outras ficam escondidas debaixo da primeira.» (the"
            " pile: the morto lies 000 «posicionado de cabeça para baixo como o monte»);"
            " decision 9"
        ),
        # rejections
        "a rejected move names its reason and changes nothing": (
            "000 «Compra do monte – quando é a vez de um jogador jogar a primeira coisa que»,"
            " 000 «ele pode fazer é comprar uma carta do monte ou comprar o lixo.» and 000"
            " «Descarte – é o ato de se jogar uma carta no lixo após uma compra do monte,»"
        ),
    },
)

TRANCA_001 = Preset(
    name="tranca-001",
    document="001",
    player_counts=Quoted((2,), "001 «Jogadores - 2.»"),
    card_value=Quoted(10, "001 «Todas as cartas = 10 pontos.»; decision 18"),
    clean_canastra_bonus=Quoted(200, "001 «Canastra Limpa = +200 pontos.»"),
    dirty_canastra_bonus=Quoted(100, "001 «Canastra Suja = +100 pontos.»"),
    batida_bonus=Quoted(100, "001 «Batida = 100 pontos.»"),
    red_three_value=Quoted(
        100,
        "001 «Três vermelho baixado, tendo canastra = +100 pontos.» and 001 «Três vermelho"
        " baixado, não tendo canastra = -100 pontos (negativos).»",
    ),
    morto_penalty=Quoted(100, "001 «Por não pegar o morto = -100 pontos (negativos).»"),
    rules={
        # players
        "only as many players as the document says may play": (
            "001 «O jogo tem dois participantes, devendo se sentar em posições opostas.»"
        ),
        "with two players each melds for themselves": (
            "001 «Objetivo - Fazer mais pontos que o adversário.» and 001 «O jogador da vez"
            " compra uma carta do monte ou todas as cartas da lixeira, baixa jogos na mesa (se"
            " possível)»"
        ),
        "with two players each has a morto of their own": (
            "001 «Distribuição - 11 cartas para cada participante e dois mortos (montes"
            " separados) com 11 cartas.» and 001 «O morto vai para a mão do primeiro jogador"
            " que bater.» (each player, A15)"
        ),
        # the deal
        "the deal is 104 cards 11 to each player and two mortos of 11": (
            "001 «Baralhos - dois de 52 cartas.» and 001 «Distribuição - 11 cartas para cada"
            " participante e dois mortos (montes separados) com 11 cartas.»"
        ),
        "the pile starts empty and the first player draws": (
            "001 «Na vez do primeiro jogador a lixeira estará vazia, mas do segundo jogador em"
            " diante, ele poderá escolher entre a compra de uma carta do monte ou de todas as"
            " cartas da lixeira»; decision 22; decision 25"
        ),
        # melds
        "melds are runs of one suit or sets of one rank": (
            "001 «Combinação de três ou mais cartas ordenadas, todas com o mesmo naipe"
            " (sequência) ou todas com o mesmo valor (trinca ou lavadeira).» and 001"
            " «Exemplos: 4,5 e 6 de Paus; 9 de paus, 9 de ouros e 9 de espadas.»"
        ),
        "a meld of three grows card by card": (
            "001 «O número mínimo de cartas em um jogo é três, mas podem ser baixadas mais"
            " cartas simultaneamente, ou outras cartas serem acrescentadas no decorrer da"
            " partida.»; decision 29"
        ),
        "runs go from four to ace with the ace high only": (
            "001 «Numa sequência, o Ás apenas pode ser posicionado após o Rei.»; decision 5"
        ),
        "threes are never melded": (
            "001 «Três Preto (Tranca) - Não pode ser usado em um jogo na mesa.» and"
            f" 001 «{RED_THREE_LAID}»; decision 5"
        ),
        "twos are wild one per meld": (
            "001 «As cartas de número 2 são utilizadas como curingas, podendo substituir"
            " qualquer carta. Exemplos: Dama de Ouros, 2 de Ouros (no lugar do Rei) e Ás de"
            " Ouros; 7 de ouros, 7 de copas e 2 de Espadas (substituindo outro 7).»;"
            " decision 4"
        ),
        "a meld of wilds alone is not a meld": (
            "001 «podendo substituir qualquer carta»; decision 4"
        ),
        "a natural may not take a wilds place": "decision 26 (001 is silent on replacing a wild)",
        # canastras
        "a run of seven is a canastra clean without a wild dirty with one": (
            "001 «Canastra - Jogo composto por 7 cartas ou mais. Existem dois tipos de"
            ' canastra: "Limpa" (sem curinga) e "Suja" (com curinga).»'
        ),
        "a set of seven is a canastra too": (
            "001 «Canastra - Jogo composto por 7 cartas ou mais.» and 001 «todas com o mesmo"
            " valor (trinca ou lavadeira)»; decision 7"
        ),
        "a clean set canastra lets the player go out": (
            "001 «Se o jogador que já pegou o morto tornar a bater, terminará a partida, mas"
            " para isso precisa de pelo menos uma canastra limpa.» and 001 «Canastra - Jogo"
            " composto por 7 cartas ou mais.»; decision 7"
        ),
        # the pile
        "taking the pile puts its top card on an own meld and the rest in the hand": (
            "001 «o jogador obrigatoriamente terá que justificar a compra da carta de cima,"
            " encaixando-a diretamente em um jogo na mesa» and 001 «de todas as cartas da"
            " lixeira»; decision 8"
        ),
        "taking the pile makes a new meld of its top card and two hand cards": (
            "001 «ou juntando com duas cartas (ou mais) da mão e baixando como um novo jogo»;"
            " decision 8; decision 29"
        ),
        "the pile cannot be taken unless its top card is used": (
            "001 «Para comprar a lixeira, o jogador obrigatoriamente terá que justificar a"
            " compra da carta de cima»; decision 8"
        ),
        "a black three on top locks the pile for the next player only": (
            "001 «Quando baixado na lixeira, tranca a mesma, impossibilitando ao próximo"
            " jogador a compra da lixeira.»; decision 2"
        ),
        "black threes left in hand count against the side": (
            "001 «Não pode ser usado em um jogo na mesa.», 001 «Deduz-se os valores das cartas"
            " que sobraram na mão.» and 001 «Todas as cartas = 10 pontos.»; decision 13"
        ),
        # red threes
        "a red three drawn is laid down at once and replaced": (
            f"001 «{RED_THREE_LAID}»; decision 1"
        ),
        "dealt red threes are laid at the start of their holders first turn": (
            f"001 «{RED_THREE_LAID}»; decision 1"
        ),
        "a red three in a morto taken by a direct batida is laid and replaced": (
            f"001 «{RED_THREE_LAID}»; decision 1"
        ),
        "red threes count plus with any canastra even a dirty one": (
            "001 «Três vermelho baixado, tendo canastra = +100 pontos.»; decision 19"
        ),
        "red threes count plus with a set canastra": (
            "001 «Três vermelho baixado, tendo canastra = +100 pontos.» and 001 «Canastra -"
            " Jogo composto por 7 cartas ou mais.»; decision 7"
        ),
        "red threes count minus without a canastra": (
            "001 «Três vermelho baixado, não tendo canastra = -100 pontos (negativos).»"
        ),
        # the morto and the batida
        "a direct batida by melding takes the morto and plays on without drawing": (
            "001 «Batida direta é aquela em que o jogador fica sem cartas na mão após baixar"
            " cartas em algum jogo na mesa (sem descartar na lixeira). Pegará o morto e"
            " continuará a jogar, sem comprar carta.»; decision 10"
        ),
        "a direct batida by taking the pile takes the morto and plays on": (
            "001 «Batida direta é aquela em que o jogador fica sem cartas na mão após baixar"
            " cartas em algum jogo na mesa (sem descartar na lixeira). Pegará o morto e"
            " continuará a jogar, sem comprar carta.»; decision 10"
        ),
        "an indirect batida takes the morto to be used next turn": (
            "001 «Batida indireta é aquela em que o jogador fica sem cartas na mão após"
            " descartar uma carta na lixeira. Pegará o morto, mas só poderá utilizá-lo na"
            " outra volta, quando for a sua vez de jogar.»; decision 10; decision 1"
        ),
        "a morto taken by an indirect batida and not used is paid as not taken": (
            "001 «Se um jogador comprar o morto por batida indireta e o adversário terminar a"
            " partida antes que chegue sua vez de jogar, o morto deverá ser pago, como se não"
            " tivesse sido comprado.»; decision 11"
        ),
        "going out needs a clean canastra": (
            "001 «Se o jogador que já pegou o morto tornar a bater, terminará a partida, mas"
            " para isso precisa de pelo menos uma canastra limpa.»; decision 14"
        ),
        "the canastra made with the last card lets the player go out": (
            "001 «Batida - É feita quando um jogador fica sem cartas na mão (o jogador se"
            " desfaz de cartas baixando elas em jogos na mesa ou descartando-as para a"
            " lixeira).» and 001 «mas para isso precisa de pelo menos uma canastra limpa»;"
            " decision 14"
        ),
        "a player who cannot go out must keep a card to discard": (
            "001 «mas para isso precisa de pelo menos uma canastra limpa»; decision 15"
        ),
        # scoring
        "the scoring breakdown of a deal with a batida": (
            "001 «Ao término da partida, somam-se os pontos das cartas na mesa, ou seja, os"
            " valores das cartas baixadas nos jogos, mais o valor extra das canastras."
            " Deduz-se os valores das cartas que sobraram na mão. Para o jogador que bateu,"
            " soma-se mais 100 pontos da batida e, caso o outro jogador não tenha pego o morto,"
            " diminui-se 100 pontos como penalidade.»"
        ),
        "every card is worth the same": "001 «Todas as cartas = 10 pontos.»; decision 18",
        "the stock running out ends the deal without a batida": (
            "decision 16 (001 is silent on the stock running out), scored as 001 «Por não"
            " pegar o morto = -100 pontos (negativos).» and 001 «Deduz-se os valores das"
            " cartas que sobraram na mão.»"
        ),
        # the match
        "a match is one deal": "001 «Objetivo - Fazer mais pontos que o adversário.»; decision 21",
        "a tie in the one deal is a draw": (
            "001 «Fazer mais pontos que o adversário.»; decision 21"
        ),
        # what a seat sees
        "only the top card of the pile is visible": (
            "001 «As cartas na lixeira são empilhadas com a face para cima, mas os jogadores"
            " podem ver apenas a carta do topo.» and 001 «Morto - Monte separado de cartas com"
            " a face virada para baixo.»; decision 9"
        ),
        # rejections
        "a rejected move names its reason and changes nothing": (
            "001 «O jogador da vez compra uma carta do monte ou todas as cartas da lixeira,"
            " baixa jogos na mesa (se possível), e descarta na lixeira uma carta que não lhe"
            " interessa.»"
        ),
    },
)

TRANCA_004 = Preset(
    name="tranca-004",
    document="004",
    player_counts=Quoted((2, 4), "004 «Jogadores - 2 e 4.»"),
    card_value=Quoted(
        10,
        "004 «Todas as cartas = 10 pontos.» and 004 «Do Oito ao Rei = 10 pontos cada carta.»;"
        " decision 18",
    ),
    clean_canastra_bonus=Quoted(200, "004 «Canastra Limpa = + 200 pontos.»"),
    dirty_canastra_bonus=Quoted(100, "004 «Canastra Suja = + 100 pontos.»"),
    batida_bonus=Quoted(100, "004 «Batida = 100 pontos.»"),
    red_three_value=Quoted(
        100,
        "004 «Três vermelho baixado, tendo canastra = +100 pontos.» and 004 «Três vermelho"
        " baixado, não tendo canastra = - 100 pontos (negativos).»",
    ),
    morto_penalty=Quoted(100, "004 «Por não pegar o morto = -100 pts (negativos).»"),
    rules={
        # players and partnerships
        "only as many players as the document says may play": (
            "004 «O jogo com dois participantes tem contagem de pontos individual. Quando"
            " quatro pessoas participam, duas duplas são formadas»"
        ),
        "with two players each melds for themselves": (
            "004 «O jogo com dois participantes tem contagem de pontos individual.»"
        ),
        "with two players each has a morto of their own": (
            "004 «No caso de jogo com 2 participantes, cada jogador recebe após bater 11 cartas"
            " (morto).»"
        ),
        "with four players partners sit opposite and share their melds": (
            "004 «Quando quatro pessoas participam, duas duplas são formadas, devendo sentar"
            " em posições alternadas.»; decision 31"
        ),
        "with four players each pair shares one morto": (
            "004 «Se for jogo de dupla, só recebe o primeiro da dupla a bater.» and 004 «No"
            " jogo de parceria, cada morto corresponde a uma dupla.»; decision 31"
        ),
        "with four players partners lay red threes for the pair": (
            "004 «vale 100 pts caso o jogador ou dupla tenham feito pelo menos uma canastra»;"
            " decision 31"
        ),
        "with four players two pairs score with both hands deducted": (
            "004 «Para o jogador ou dupla que bateu, soma mais 100 pontos da batida e caso o"
            " outro jogador ou dupla não tenha pego o morto, diminúi-se 100 pontos como"
            " penalidade.»"
        ),
        # the deal
        "the deal is 104 cards 11 to each player and two mortos of 11": (
            "004 «Baralhos - dois de 52 cartas.» and 004 «Distribuição - onze cartas para cada"
            " participante e dois mortos de 11 cartas.»"
        ),
        "the pile starts empty and the first player draws": (
            "004 «O mão compra uma carta do baralho», 004 «Essa carta começa a lixeira» and"
            " 004 «Do segundo jogador em diante, existe opção entre a compra de uma carta do"
            " monte ou de todas as cartas da lixeira»; decision 22; decision 25"
        ),
        # melds
        "melds are runs of one suit or sets of one rank": (
            "004 «Jogo - três ou mais cartas, ordenadas, do mesmo naipe ou ordenadas com o"
            " mesmo valor (lavadeira). Ex.: 4,5 e 6 de Paus; 9 de paus, 9 de ouros e nove de"
            " espadas; 10, Valete e Dama de Copas.»"
        ),
        "a meld of three grows card by card": (
            "004 «número mínimo de cartas é três, mas podem ser descidas mais cartas"
            " simultaneamente, ou outras cartas serem acrescentadas no decorrer da partida.»;"
            " decision 29"
        ),
        "runs go from four to ace with the ace high only": (
            "004 «O Ás vale acima do Rei.»; decision 5"
        ),
        "threes are never melded": (
            "004 «Três Preto (Tranca) - Não pode ser usado para fazer um jogo.» and"
            f" 004 «{RED_THREE_LAID}»; decision 5"
        ),
        "twos are wild one per meld": (
            "004 «Curingas - Os dois são utilizados como curingas, podendo substituir qualquer"
            " carta. Exemplo: Dama-dois-Ás de Ouros; sete-sete-dois; cinco,cinco e dois.»;"
            " decision 4"
        ),
        "a meld of wilds alone is not a meld": (
            "004 «podendo substituir qualquer carta»; decision 4"
        ),
        "a natural may not take a wilds place": "decision 26 (004 is silent on replacing a wild)",
        # canastras
        "a run of seven is a canastra clean without a wild dirty with one": (
            "004 «Canastra - Jogo de sete cartas ou mais em sequencia do mesmo naipe. Tem dois"
            ' tipos de canastra: "Limpa" (sem curinga), "Suja" (com curinga) .»'
        ),
        "a set never becomes a canastra": (
            "004 «Canastra - Jogo de sete cartas ou mais em sequencia do mesmo naipe.»; decision 7"
        ),
        # the pile
        "taking the pile puts its top card on an own meld and the rest in the hand": (
            "004 «o jogador obrigatóriamente terá que justificar a compra da carta de cima,"
            " encaixando-a diretamente em um jogo na mesa» and 004 «de todas as cartas da"
            " lixeira»; decision 8"
        ),
        "taking the pile makes a new meld of its top card and two hand cards": (
            "004 «ou juntando com duas cartas ou mais da mão e baixando como um novo jogo»;"
            " decision 8; decision 29"
        ),
        "the pile cannot be taken unless its top card is used": (
            "004 «Para comprar a lixeira, o jogador obrigatóriamente terá que justificar a"
            " compra da carta de cima»; decision 8"
        ),
        "a black three on top locks the pile for the next player only": (
            "004 «Quando baixado na lixeira, tranca a mesma, não podendo o próximo jogador"
            " comprar a lixeira.»; decision 2"
        ),
        "black threes left in hand count against the side": (
            "004 «Não pode ser usado para fazer um jogo.», 004 «Deduz -se os valores das"
            " cartas que sobraram na mão.» and 004 «Todas as cartas = 10 pontos.»;"
            " decision 13"
        ),
        # red threes
        "a red three drawn is laid down at once and replaced": (
            f"004 «{RED_THREE_LAID}»; decision 1"
        ),
        "dealt red threes are laid at the start of their holders first turn": (
            f"004 «{RED_THREE_LAID}»; decision 1"
        ),
        "a red three in a morto taken by a direct batida is laid and replaced": (
            f"004 «{RED_THREE_LAID}»; decision 1"
        ),
        "red threes count plus with any canastra even a dirty one": (
            "004 «Três vermelho baixado, tendo canastra = +100 pontos.»; decision 19"
        ),
        "red threes count minus without a canastra": (
            "004 «Três vermelho baixado, não tendo canastra = - 100 pontos (negativos).»"
        ),
        "red threes count minus beside a set of seven which is no canastra": (
            "004 «Três vermelho baixado, não tendo canastra = - 100 pontos (negativos).» and"
            " 004 «Canastra - Jogo de sete cartas ou mais em sequencia do mesmo naipe.»;"
            " decision 7"
        ),
        # the morto and the batida
        "a direct batida by melding takes the morto and plays on without drawing": (
            "004 «direta é aquela em que o jogador esvazia a mão sem jogar fora. Pegará o"
            " morto e continuará a jogar, sem comprar carta.»; decision 10"
        ),
        "a direct batida by taking the pile takes the morto and plays on": (
            "004 «direta é aquela em que o jogador esvazia a mão sem jogar fora. Pegará o"
            " morto e continuará a jogar, sem comprar carta.»; decision 10"
        ),
        "an indirect batida takes the morto to be used next turn": (
            "004 «Batida indireta é aquela em que o jogador termina suas cartas, descartando"
            " uma. Pegará o morto, mas só poderá utilizá-lo na outra volta, quando for a sua"
            " vez de jogar.»; decision 10; decision 1"
        ),
        "a morto taken by an indirect batida and not used is paid as not taken": (
            "004 «Se um jogador comprar o morto por batida indireta e o adversário terminar a"
            " partida antes que chegue sua vez de jogar, o morto deverá ser pago, como se não"
            " o tivesse sido comprado.»; decision 11"
        ),
        "going out needs a clean canastra": (
            "004 «Se quem já pegou o morto tornar a bater, terminará a partida, mas para isso"
            " precisa-se de pelo menos uma canastra limpa.»; decision 14"
        ),
        "the canastra made with the last card lets the player go out": (
            "004 «Batida - é acabar as cartas da mão.» and 004 «mas para isso precisa-se de"
            " pelo menos uma canastra limpa»; decision 14"
        ),
        "a player who cannot go out must keep a card to discard": (
            "004 «mas para isso precisa-se de pelo menos uma canastra limpa»; decision 15"
        ),
        # scoring
        "the scoring breakdown of a deal with a batida": (
            "004 «Ao término da partida, somam-se os pontos na mesa, ou seja os valores das"
            " cartas baixadas, mais o valor extra das canastras. Deduz -se os valores das"
            " cartas que sobraram na mão. Para o jogador ou dupla que bateu, soma mais 100"
            " pontos da batida»"
        ),
        "every card is worth the same": (
            "004 «Todas as cartas = 10 pontos.» and 004 «Do Oito ao Rei = 10 pontos cada"
            " carta.» (they agree: decision 18)"
        ),
        "the stock running out ends the deal without a batida": (
            "decision 16 (004 is silent on the stock running out), scored as 004 «Por não"
            " pegar o morto = -100 pts (negativos).» and 004 «Deduz -se os valores das cartas"
            " que sobraram na mão.»"
        ),
        # the match
        "a match is one deal": "004 «Objetivo - Fazer mais pontos.»; decision 21",
        "a tie in the one deal is a draw": "004 «Objetivo - Fazer mais pontos.»; decision 21",
        # what a seat sees
        "only the top card of the pile is visible": (
            "decision 9 (004 is silent on what can be seen of the pile): the top card only, as"
            " 001 «os jogadores podem ver apenas a carta do topo»"
        ),
        # rejections
        "a rejected move names its reason and changes nothing": (
            "004 «Após cada compra o jogador poderá baixar uma combinação de cartas - jogo -"
            " antes de descartar (jogar fora) uma carta da sua mão.»"
        ),
    },
)

PRESETS = (TRANCA_000, TRANCA_001, TRANCA_004)

QUOTE = re.compile(r"\b(\d{3}) «([^»]+)»")
DECISION = re.compile(r"\bdecision (\d+)\b")


def quoted_passages() -> list[tuple[str, str]]:
    """Every passage the table quotes: (the document's short name, the passage)."""
    return [
        (short, passage)
        for preset in PRESETS
        for _, cite in preset.citations()
        for short, passage in QUOTE.findall(cite)
    ]


# ----- running a test for the presets of a rule ------------------------------------------

_Test = TypeVar("_Test", bound=Callable[..., None])
_CHECKED: set[str] = set()  # the rules the tests below check


def _presets_with(test: Callable[..., None]) -> list[Preset]:
    """The presets whose table holds the rule ``test`` is named after."""
    rule = test.__name__.removeprefix("test_").replace("_", " ")
    presets = [p for p in PRESETS if rule in p.rules]
    if not presets:
        raise LookupError(f"{test.__name__}: no preset of the table has the rule {rule!r}")
    _CHECKED.add(rule)
    return presets


def rule(test: _Test) -> _Test:
    """Run ``test`` for every preset that has the rule it is named after."""
    presets = _presets_with(test)
    # (mypy types a mark over a Callable[..., None] as Any: hence the annotation)
    marked: _Test = pytest.mark.parametrize("preset", presets, ids=[p.name for p in presets])(test)
    return marked


def rule_at_each_table_size(test: _Test) -> _Test:
    """Run ``test`` for every preset that has its rule, at each of its table sizes."""
    pairs = [(p, n) for p in _presets_with(test) for n in p.player_counts.value]
    ids = [f"{p.name}-{n}-players" for p, n in pairs]
    marked: _Test = pytest.mark.parametrize(("preset", "n_players"), pairs, ids=ids)(test)
    return marked


# ----- helpers --------------------------------------------------------------------------

CLEAN_RUN = "4S 5S 6S 7S 8S 9S TS"  # seven naturals of one suit: a clean canastra
DIRTY_RUN = "4D 5D 6D 7D 8D 9D 2C"  # six naturals and a wild: a dirty canastra
SET_OF_SEVEN = "9C 9D 9H 9S 9C 9D 9H"  # a canastra only where sets can be canastras
SET_OF_SIX = "9C 9D 9H 9S 9C 9D"  # one card short of a canastra
MORTO_A = "4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MORTO_B = "4C 5C 6C 7C 8C 9C TC JC QC KC AC"


def position(
    preset: Preset,
    n_players: int = 2,
    *,
    hands: Sequence[str],
    melds: Sequence[tuple[int, str]] = (),
    pile: str = "",
    stock: str = "",
    mortos: Sequence[str | None] | None = None,
    phase: str = "draw",
    red_threes: Sequence[str] | None = None,
) -> DealState:
    return build_position(
        preset.knobs,
        n_players,
        hands=hands,
        melds=melds,
        pile=pile,
        stock=stock,
        mortos=mortos,
        phase=phase,
        red_threes=red_threes,
    )


def rejected(s: DealState, seat: int, move: str) -> Reason:
    """Play a move that must be refused: check that it was not offered as legal and
    that nothing changed; return the reason."""
    before = s.to_dict()
    offered = legal_moves(s) if seat == s.turn and not s.is_over else []
    with pytest.raises(RuleViolation) as refused:
        play(s, seat, move)
    assert s.to_dict() == before
    assert parse_move(move) not in offered
    return refused.value.reason


def texts(cards: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cards)


def legal(s: DealState) -> list[str]:
    return [move_text(m) for m in legal_moves(s)]


def kinds_of_canastras(s: DealState) -> list[str | None]:
    return [m.canastra_kind(s.rules) for m in s.melds]


def deck_with(front: str) -> list[int]:
    """A full 104-card deck in a fixed order: ``front`` first (dealt one card at a time
    from the left of the dealer), the red threes not named there last (the bottom
    of the stock)."""
    first = parse_cards(front)
    rest = full_deck(jokers=False)
    for c in first:
        rest.remove(c)
    reds = [c for c in rest if card_text(c) in ("3H", "3D")]
    return first + [c for c in rest if card_text(c) not in ("3H", "3D")] + reds


def play_out(s: DealState) -> None:
    """Play the first legal move until the deal ends."""
    for _ in range(5000):
        if s.is_over:
            return
        play(s, s.turn, legal(s)[0])
    raise AssertionError("the deal did not end")


# ----- the table itself -----------------------------------------------------------------


def test_every_rule_of_the_table_is_checked_by_a_test() -> None:
    # (a test whose rule no preset has fails at import, in _presets_with)
    in_table = {rule for preset in PRESETS for rule in preset.rules}
    assert in_table - _CHECKED == set()


def test_the_presets_differ_only_in_the_rules_their_documents_differ_on() -> None:
    # Every rule not all three presets have, with the presets that have it: a rule
    # dropped from one preset's entry by mistake shows here.
    every_rule = {rule for preset in PRESETS for rule in preset.rules}
    some = {
        rule: [p.name for p in PRESETS if rule in p.rules]
        for rule in every_rule
        if not all(rule in p.rules for p in PRESETS)
    }
    assert some == {
        # 001 is played by two only
        "with four players partners sit opposite and share their melds": [
            "tranca-000",
            "tranca-004",
        ],
        "with four players each pair shares one morto": ["tranca-000", "tranca-004"],
        "with four players partners lay red threes for the pair": ["tranca-000", "tranca-004"],
        "with four players two pairs score with both hands deducted": ["tranca-000", "tranca-004"],
        # only runs are canastras in 000 and 004, any meld of seven in 001 (decision 7)
        "a set never becomes a canastra": ["tranca-000", "tranca-004"],
        "red threes count minus beside a set of seven which is no canastra": [
            "tranca-000",
            "tranca-004",
        ],
        "a set of seven is a canastra too": ["tranca-001"],
        "a clean set canastra lets the player go out": ["tranca-001"],
        "red threes count plus with a set canastra": ["tranca-001"],
        # 000's passage on a 2 between an ace and a three, and its "pontos de batida"
        "a two of the runs suit is still a wild": ["tranca-000"],
        "a match to a target score by override": ["tranca-000"],
    }


DECISIONS = {
    int(n)
    for n in re.findall(
        r"^### Decision (\d+) — ",
        (Path(__file__).resolve().parents[2] / "docs" / "RULES.md").read_text(),
        re.M,
    )
}


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
def test_every_citation_quotes_a_document_by_name_or_names_a_decision(preset: Preset) -> None:
    for what, cite in preset.citations():
        quotes = QUOTE.findall(cite)
        decisions = [int(n) for n in DECISION.findall(cite)]
        # every «…» is preceded by the short name of its document
        assert cite.count("«") == cite.count("»") == len(quotes), (what, cite)
        assert {short for short, _ in quotes} <= {"000", "001", "004"}, (what, cite)
        # the preset's own document, or a decision where it is silent
        assert preset.document in {short for short, _ in quotes} or decisions, (what, cite)
        assert set(decisions) <= DECISIONS, (what, cite)


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
def test_the_tables_values_are_the_presets_knobs(preset: Preset) -> None:
    knobs = preset.knobs
    assert knobs.player_counts == preset.player_counts.value
    assert set(knobs.card_values) == {preset.card_value.value}
    assert knobs.canastra_bonus.clean == preset.clean_canastra_bonus.value
    assert knobs.canastra_bonus.dirty == preset.dirty_canastra_bonus.value
    assert knobs.batida_bonus == preset.batida_bonus.value
    assert knobs.red_three_value == preset.red_three_value.value
    assert knobs.morto_penalty == preset.morto_penalty.value


# ----- players and partnerships ---------------------------------------------------------


@rule
def test_only_as_many_players_as_the_document_says_may_play(preset: Preset) -> None:
    counts = preset.player_counts.value
    assert counts
    for n in range(1, 6):
        if n in counts:
            s = new_deal(preset.knobs, n, seed=1)
            assert (s.n_players, s.n_sides) == (n, 2)
            assert Match(preset.knobs, n, seed=1).deal.n_players == n
        else:
            with pytest.raises(ValueError, match="played by"):
                new_deal(preset.knobs, n, seed=1)
            with pytest.raises(ValueError, match="played by"):
                Match(preset.knobs, n, seed=1)


@rule
def test_with_two_players_each_melds_for_themselves(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H 6H 9C", "7H KC QD"], stock="8S 8C")
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD
    assert rejected(s, 1, "take @0") == Reason.ALREADY_DREW


@rule
def test_with_two_players_each_has_a_morto_of_their_own(preset: Preset) -> None:
    s = position(
        preset,
        hands=["5H 6H 7H", "9D TD"],
        stock="8C 9C JD",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    play(s, 0, "discard 4H")
    play(s, 1, "draw")
    play(s, 1, "meld 9D TD JD")
    assert s.morto_taken == [True, True]
    assert texts(s.hands[1]) == texts(parse_cards(MORTO_B))


@rule
def test_with_four_players_partners_sit_opposite_and_share_their_melds(preset: Preset) -> None:
    s = position(
        preset,
        4,
        hands=["4H 5H 6H 9C", "7H KC QD", "7H 9D 9S", "KD KS"],
        stock="QC JD 8S 8C",
    )
    assert s.side_of(0) == s.side_of(2) != s.side_of(1) == s.side_of(3)
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD  # an opponent
    play(s, 1, "discard KC")
    play(s, 2, "draw")
    play(s, 2, "add @0 7H")  # the partner
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert s.melds[0].side == 0


@rule
def test_with_four_players_each_pair_shares_one_morto(preset: Preset) -> None:
    assert len(new_deal(preset.knobs, 4, seed=3).mortos) == 2
    s = position(
        preset,
        4,
        hands=["9C", "KD KS QD", "JH QH", "KC 5D 6D"],
        melds=[(0, CLEAN_RUN)],
        stock="8C 8S KH 4D",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard 9C")  # the first of the pair to empty a hand takes its morto
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    play(s, 1, "draw")
    play(s, 1, "discard QD")
    play(s, 2, "draw")
    play(s, 2, "meld JH QH KH")  # the partner empties a hand: no second morto, a batida
    assert s.is_over
    assert s.end_reason == "batida"
    assert s.went_out == 2
    assert s.morto_taken == [True, False]
    assert s.mortos[1] is not None and len(s.mortos[1]) == 11


@rule
def test_with_four_players_partners_lay_red_threes_for_the_pair(preset: Preset) -> None:
    s = position(preset, 4, hands=["9C KD", "QS QD", "5C 6C", "8S 8D"], stock="5D 5S 3H 8C 4D")
    play(s, 0, "draw")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    play(s, 1, "discard QS")
    play(s, 2, "draw")  # the partner draws the red three
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[2]) == ["5C", "5S", "6C"]


@rule
def test_with_four_players_two_pairs_score_with_both_hands_deducted(preset: Preset) -> None:
    card = preset.card_value.value
    s = position(
        preset,
        4,
        hands=["QC", "KD KS", "9H 9D 9S", "4C"],
        melds=[(0, CLEAN_RUN), (1, "JH QH KH")],
        red_threes=["3H", ""],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    assert len(score_deal(s)) == 2
    side0, side1 = score_deal(s)
    assert side0.hand_cards == -3 * card  # the partner's three cards
    assert side0.total == (
        7 * card
        + preset.clean_canastra_bonus.value
        + preset.batida_bonus.value
        + preset.red_three_value.value
        - 3 * card
    )
    assert side1.hand_cards == -3 * card  # both opponents' cards
    assert side1.total == 3 * card - preset.morto_penalty.value - 3 * card


# ----- the deal -------------------------------------------------------------------------


@rule_at_each_table_size
def test_the_deal_is_104_cards_11_to_each_player_and_two_mortos_of_11(
    preset: Preset, n_players: int
) -> None:
    s = new_deal(preset.knobs, n_players, deck=deck_with(""), dealer=0)
    assert [len(h) for h in s.hands] == [11] * n_players
    assert [len(m) for m in s.mortos if m is not None] == [11, 11]
    assert len(s.stock) == 104 - 11 * n_players - 22
    assert sorted(s.all_cards()) == sorted(full_deck(jokers=False))
    assert not any(s.morto_taken)


@rule
def test_the_pile_starts_empty_and_the_first_player_draws(preset: Preset) -> None:
    s = new_deal(preset.knobs, 2, seed=7, dealer=0)
    assert s.pile == []
    assert s.turn == 1  # the player to the dealer's left
    assert legal(s) == ["draw"]
    assert rejected(s, 1, "take 4H 5H") == Reason.DISCARD_PILE_EMPTY
    play(s, 1, "draw")
    assert len(s.hands[1]) == 12
    card = card_text(s.hands[1][0])
    play(s, 1, f"discard {card}")  # the first discard starts the pile
    assert [card_text(c) for c in s.pile] == [card]
    assert legal(s)[0] == "draw"


# ----- melds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Melding:
    """Melds laid from a hand (cards, kind), and melds refused as invalid."""

    hand: str
    melds: tuple[tuple[str, str], ...]
    invalid: tuple[str, ...]


MELDINGS = {
    "runs-of-hearts-and-sets": Melding(
        "4H 5H 6H 9C 9D 9S 7C 8D 9H KS QS",
        (("4H 5H 6H", "run"), ("9C 9D 9S", "set")),
        ("7C 8D 9H", "9H KS QS"),  # mixed suits; neither a run nor a set
    ),
    "runs-of-clubs-and-sets": Melding(  # 001's and 004's examples
        "4C 5C 6C 9C 9D 9S 7H 8D 9H KS QS",
        (("4C 5C 6C", "run"), ("9C 9D 9S", "set")),
        ("7H 8D 9H", "9H KS QS"),
    ),
    "ten-jack-queen-of-hearts": Melding(  # 004's third example
        "4C 5C 6C 9C 9D 9S TH JH QH 7H 8D KS",
        (("4C 5C 6C", "run"), ("9C 9D 9S", "set"), ("TH JH QH", "run")),
        ("7H 8D KS",),
    ),
}


@rule
@pytest.mark.parametrize("case", MELDINGS.values(), ids=MELDINGS.keys())
def test_melds_are_runs_of_one_suit_or_sets_of_one_rank(preset: Preset, case: Melding) -> None:
    s = position(preset, hands=[case.hand, "KD"], phase="play")
    for cards, _ in case.melds:
        play(s, 0, f"meld {cards}")
    assert [m["kind"] for m in seat_view(s, 0)["melds"]] == [kind for _, kind in case.melds]
    for cards in case.invalid:
        assert rejected(s, 0, f"meld {cards}") == Reason.INVALID_MELD


@rule
def test_a_meld_of_three_grows_card_by_card(preset: Preset) -> None:
    s = position(preset, hands=["4C 5C 6C 7C 8C KS QS", "KD"], phase="play")
    play(s, 0, "meld 4C 5C 6C")
    play(s, 0, "add @0 7C")
    play(s, 0, "add @0 8C")
    assert texts(s.melds[0].cards) == ["4C", "5C", "6C", "7C", "8C"]
    assert (s.turn, s.phase) == (0, "play")


@rule
def test_runs_go_from_four_to_ace_with_the_ace_high_only(preset: Preset) -> None:
    s = position(preset, hands=["QH KH AH AS 4S 5S KS 6S JH", "KD"], phase="play")
    assert rejected(s, 0, "meld AS 4S 5S") == Reason.INVALID_MELD  # no low ace
    assert rejected(s, 0, "meld KS AS 4S") == Reason.INVALID_MELD  # no wrapping round
    play(s, 0, "meld QH KH AH")
    play(s, 0, "add @0 JH")
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @1 AS") == Reason.CARD_DOES_NOT_FIT


@rule
def test_threes_are_never_melded(preset: Preset) -> None:
    s = position(preset, hands=["3S 3C 3C 2H 4S 5S 6S 9D", "KD"], phase="play")
    assert rejected(s, 0, "meld 3C 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 2H 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 3S 4S 5S") == Reason.THREES_CANNOT_BE_MELDED
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @0 3S") == Reason.THREES_CANNOT_BE_MELDED


@dataclass(frozen=True)
class Wilds:
    """Melds of one wild each, the first as another seat sees it, and moves that
    would put a second wild in a meld."""

    hand: str
    melds: tuple[str, ...]
    first_shown: tuple[str, ...]
    too_many: tuple[str, ...]


WILDS = {
    "in-a-run-and-a-set": Wilds(
        "5C 2S 7C 7D 7H 2H 2D 2C 9D KS",
        ("2S 5C 7C", "2H 7D 7H"),
        ("5C", "2S", "7C"),  # the 2 stands for the 6 of clubs
        ("add @0 2D", "add @1 2D", "meld 2C 2D 9D"),
    ),
    "001s-examples": Wilds(
        "QD 2D AD 7D 7H 2S 2H 2C 9C KS",
        ("QD 2D AD", "7D 7H 2S"),
        ("QD", "2D", "AD"),  # the 2 is the king
        ("add @0 2H", "add @1 2H", "meld 2C 2H 9C"),
    ),
    "004s-examples": Wilds(
        "QD 2D AD 7D 7H 2S 5C 5H 2H 2C 9C KS",
        ("QD 2D AD", "7D 7H 2S", "5C 5H 2H"),
        ("QD", "2D", "AD"),
        ("add @0 2C", "add @1 2C", "add @2 2C"),
    ),
    "two-wilds-and-a-natural": Wilds("2C 2D 9D 9S KS", (), (), ("meld 2C 2D 9D",)),
}


@rule
@pytest.mark.parametrize("case", WILDS.values(), ids=WILDS.keys())
def test_twos_are_wild_one_per_meld(preset: Preset, case: Wilds) -> None:
    s = position(preset, hands=[case.hand, "KD"], phase="play")
    for cards in case.melds:
        play(s, 0, f"meld {cards}")
    assert [m.shape.wilds for m in s.melds] == [1] * len(case.melds)
    if case.melds:
        assert tuple(seat_view(s, 1)["melds"][0]["cards"]) == case.first_shown
    for move in case.too_many:
        assert rejected(s, 0, move) == Reason.TOO_MANY_WILDS


@rule
def test_a_meld_of_wilds_alone_is_not_a_meld(preset: Preset) -> None:
    s = position(preset, hands=["2C 2D 2H 9D KS", "KD"], phase="play")
    assert rejected(s, 0, "meld 2C 2D 2H") == Reason.INVALID_MELD


@rule
def test_a_two_of_the_runs_suit_is_still_a_wild(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H 2H 2C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2H 4H 5H")
    assert s.melds[0].shape.wilds == 1
    assert rejected(s, 0, "add @0 2C") == Reason.TOO_MANY_WILDS


@rule
def test_a_natural_may_not_take_a_wilds_place(preset: Preset) -> None:
    s = position(preset, hands=["5C 2S 7C 6C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2S 5C 7C")
    assert rejected(s, 0, "replace @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert rejected(s, 0, "add @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert "add @0 6C" not in legal(s)
    assert texts(s.melds[0].cards) == ["2S", "5C", "7C"]


# ----- canastras ------------------------------------------------------------------------


@rule
def test_a_run_of_seven_is_a_canastra_clean_without_a_wild_dirty_with_one(
    preset: Preset,
) -> None:
    s = position(
        preset, hands=["4H 5H 6H 7H 8H 9H TH 4D 5D 6D 7D 8D 9D 2C QS KS", "KD"], phase="play"
    )
    play(s, 0, "meld 4H 5H 6H")
    for card in ("7H", "8H", "9H"):
        play(s, 0, f"add @0 {card}")
    assert kinds_of_canastras(s) == [None]  # six cards
    play(s, 0, "add @0 TH")
    assert kinds_of_canastras(s) == ["clean"]
    play(s, 0, "meld 4D 5D 6D")
    for card in ("7D", "8D", "9D"):
        play(s, 0, f"add @1 {card}")
    play(s, 0, "add @1 2C")
    assert kinds_of_canastras(s) == ["clean", "dirty"]
    assert [m["canastra"] for m in seat_view(s, 1)["melds"]] == ["clean", "dirty"]


@rule
def test_a_set_never_becomes_a_canastra(preset: Preset) -> None:
    s = position(preset, hands=["9C 9C 9D 9D 9H 9H 9S 9S 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H", "9S", "9S"):
        play(s, 0, f"add @0 {card}")
    assert len(s.melds[0].cards) == 8
    assert kinds_of_canastras(s) == [None]
    going_out = position(
        preset,
        hands=["KH", "KD"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(going_out, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA


@rule
def test_a_set_of_seven_is_a_canastra_too(preset: Preset) -> None:
    s = position(preset, hands=["9C 9C 9D 9D 9H 9H 9S KS 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H"):
        play(s, 0, f"add @0 {card}")
    assert kinds_of_canastras(s) == [None]
    play(s, 0, "add @0 9S")
    assert kinds_of_canastras(s) == ["clean"]
    dirty = position(
        preset, hands=["KH", "KD"], melds=[(0, "9C 9C 9D 9D 9H 9H 2S")], mortos=[None, MORTO_B]
    )
    assert kinds_of_canastras(dirty) == ["dirty"]


@rule
def test_a_clean_set_canastra_lets_the_player_go_out(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert s.is_over and s.end_reason == "batida" and s.went_out == 0
    assert score_deal(s)[0].canastras == {"clean": preset.clean_canastra_bonus.value}


# ----- taking the discard pile ----------------------------------------------------------


@rule
def test_taking_the_pile_puts_its_top_card_on_an_own_meld_and_the_rest_in_the_hand(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["9C KD", "QS QD"],
        melds=[(0, "4H 5H 6H")],
        pile="JC 3S 8D 7H",
        stock="9S",
    )
    play(s, 0, "take @0")
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert texts(s.hands[0]) == ["3S", "8D", "9C", "JC", "KD"]
    assert s.pile == []
    assert s.phase == "play"
    assert len(s.stock) == 1


@rule
@pytest.mark.parametrize("more", ["", "7S"], ids=["three-cards", "then-a-fourth"])
def test_taking_the_pile_makes_a_new_meld_of_its_top_card_and_two_hand_cards(
    preset: Preset, more: str
) -> None:
    s = position(preset, hands=[f"7C 7D {more} 9S KD", "QS QD"], pile="QC 7H", stock="9S")
    play(s, 0, "take 7C 7D")
    assert texts(s.melds[0].cards) == ["7C", "7D", "7H"]
    assert texts(s.hands[0]) == sorted(["9S", "KD", "QC", *more.split()])
    assert s.pile == []
    for card in more.split():  # more cards by later adds
        play(s, 0, f"add @0 {card}")
    assert len(s.melds[0].cards) == 3 + len(more.split())


@rule
def test_the_pile_cannot_be_taken_unless_its_top_card_is_used(preset: Preset) -> None:
    s = position(
        preset,
        hands=["5H 6H 9S KD", "QS QD"],
        melds=[(0, "9C TC JC")],
        pile="9D TD 8D",
        stock="4C",
    )
    assert rejected(s, 0, "take @0") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 5H 6H") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 9D TD") == Reason.CARD_NOT_IN_HAND  # not the pile's cards
    assert rejected(s, 0, "take @1") == Reason.UNKNOWN_MELD
    assert legal(s) == ["draw"]


@rule
def test_a_black_three_on_top_locks_the_pile_for_the_next_player_only(preset: Preset) -> None:
    s = position(preset, hands=["3S 8H 9H KD", "7H QC JS"], stock="4C 5C TH", phase="play")
    play(s, 0, "discard 3S")
    assert rejected(s, 1, "take QC JS") == Reason.DISCARD_PILE_LOCKED
    assert legal(s) == ["draw"]
    play(s, 1, "draw")
    play(s, 1, "discard 7H")
    play(s, 0, "take 8H 9H")  # the three is buried now: the pile is open again
    assert texts(s.melds[0].cards) == ["7H", "8H", "9H"]
    assert texts(s.hands[0]) == ["3S", "KD"]


@rule
def test_black_threes_left_in_hand_count_against_the_side(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "3S 3C 9D"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert score_deal(s)[1].hand_cards == -3 * preset.card_value.value


# ----- red threes -----------------------------------------------------------------------


@rule
def test_a_red_three_drawn_is_laid_down_at_once_and_replaced(preset: Preset) -> None:
    s = position(preset, hands=["9C KD", "QS QD"], stock="5S 8C 3H")
    play(s, 0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[0]) == ["8C", "9C", "KD"]
    assert texts(s.stock) == ["5S"]
    assert s.phase == "play"
    assert seat_view(s, 1)["red_threes"] == [["3H"], []]


@rule
def test_dealt_red_threes_are_laid_at_the_start_of_their_holders_first_turn(
    preset: Preset,
) -> None:
    # 3H is dealt to seat 1, 3D to seat 0
    s = new_deal(preset.knobs, 2, deck=deck_with("3H 3D"), dealer=0)
    assert s.turn == 1
    assert [texts(r) for r in s.red_threes] == [[], ["3H"]]
    assert len(s.hands[1]) == 11 and parse_card("3H") not in s.hands[1]
    assert parse_card("3D") in s.hands[0]  # not yet seat 0's turn
    assert len(s.stock) == 59
    play(s, 1, "draw")
    play(s, 1, f"discard {card_text(s.hands[1][0])}")
    assert s.turn == 0
    assert [texts(r) for r in s.red_threes] == [["3D"], ["3H"]]
    assert len(s.hands[0]) == 11 and parse_card("3D") not in s.hands[0]
    assert len(s.stock) == 57


@rule
def test_a_red_three_in_a_morto_taken_by_a_direct_batida_is_laid_and_replaced(
    preset: Preset,
) -> None:
    morto = "3D 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(
        preset,
        hands=["5H 6H 7H", "KD QS"],
        stock="8C 9C",
        mortos=[morto, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert [texts(r) for r in s.red_threes] == [["3D"], []]
    assert len(s.hands[0]) == 11
    assert parse_card("9C") in s.hands[0]
    assert texts(s.stock) == ["8C"]


@rule
def test_red_threes_count_plus_with_any_canastra_even_a_dirty_one(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    red = preset.red_three_value.value
    assert [sc.red_threes for sc in score_deal(s)] == [red, 2 * red]


@rule
def test_red_threes_count_plus_with_a_set_canastra(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S"), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    red = preset.red_three_value.value
    assert [sc.red_threes for sc in score_deal(s)] == [red, 2 * red]


@rule
def test_red_threes_count_minus_without_a_canastra(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, SET_OF_SIX)],  # six cards: no canastra
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -2 * preset.red_three_value.value]


@rule
def test_red_threes_count_minus_beside_a_set_of_seven_which_is_no_canastra(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, SET_OF_SEVEN)],
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -2 * preset.red_three_value.value]


# ----- the morto and the batida ---------------------------------------------------------


@rule
def test_a_direct_batida_by_melding_takes_the_morto_and_plays_on_without_drawing(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["5H 6H 7H", "KD QS"],
        stock="8C 9C",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert not s.is_over
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]
    assert s.mortos[0] is None
    assert rejected(s, 0, "draw") == Reason.ALREADY_DREW
    assert len(s.stock) == 2


@rule
def test_a_direct_batida_by_taking_the_pile_takes_the_morto_and_plays_on(
    preset: Preset,
) -> None:
    # the take melds the last two cards of the hand with the pile's only card
    s = position(
        preset, hands=["5H 6H", "KD QS"], pile="7H", stock="8C 9C", mortos=[MORTO_A, MORTO_B]
    )
    assert "take 5H 6H" in legal(s)
    play(s, 0, "take 5H 6H")
    assert not s.is_over
    assert s.end_reason == ""
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]


@rule
def test_an_indirect_batida_takes_the_morto_to_be_used_next_turn(preset: Preset) -> None:
    morto = "3H 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(
        preset,
        hands=["9H", "KD KS QC"],
        stock="8C 9C JD",
        mortos=[morto, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard 9H")
    assert s.turn == 1
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(morto))
    assert s.red_threes == [[], []]  # its red three is laid on the next turn
    play(s, 1, "draw")
    play(s, 1, "discard QC")
    assert (s.turn, s.phase) == (0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert parse_card("9C") in s.hands[0] and len(s.hands[0]) == 11
    play(s, 0, "draw")
    assert len(s.hands[0]) == 12


@rule
def test_a_morto_taken_by_an_indirect_batida_and_not_used_is_paid_as_not_taken(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["9H", "KD KS"],
        melds=[(1, "4D 5D 6D 7D 8D 9D TD")],
        stock="8C 9C KC",
        mortos=[MORTO_A, None],
        phase="play",
    )
    play(s, 0, "discard 9H")
    play(s, 1, "draw")
    play(s, 1, "meld KC KD KS")
    assert s.is_over and s.went_out == 1
    side0, side1 = score_deal(s)
    assert side0.morto_penalty == -preset.morto_penalty.value
    assert side0.hand_cards == 0  # the morto's cards are not counted
    assert side0.total == -preset.morto_penalty.value
    assert side1.morto_penalty == 0
    assert side1.total == (
        10 * preset.card_value.value + preset.clean_canastra_bonus.value + preset.batida_bonus.value
    )


@rule
def test_going_out_needs_a_clean_canastra(preset: Preset) -> None:
    dirty = position(
        preset, hands=["KH", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    assert rejected(dirty, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    dirty = position(
        preset,
        hands=["JH QH KH", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(dirty, 0, "meld JH QH KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    clean = position(
        preset,
        hands=["JH QH KH", "KD QS"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(clean, 0, "meld JH QH KH")
    assert clean.is_over and clean.end_reason == "batida" and clean.went_out == 0


@rule
def test_the_canastra_made_with_the_last_card_lets_the_player_go_out(preset: Preset) -> None:
    s = position(
        preset,
        hands=["TS", "KD QS"],
        melds=[(0, "4S 5S 6S 7S 8S 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "add @0 TS")
    assert s.is_over and s.went_out == 0


@rule
def test_a_player_who_cannot_go_out_must_keep_a_card_to_discard(preset: Preset) -> None:
    s = position(
        preset,
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(s, 0, "meld JH QH KH") == Reason.MUST_KEEP_A_CARD_TO_DISCARD
    with_morto = position(
        preset, hands=["JH QH KH 9C", "KD QS"], mortos=[MORTO_A, MORTO_B], phase="play"
    )
    play(with_morto, 0, "meld JH QH KH")  # the discard will take the morto
    play(with_morto, 0, "discard 9C")
    assert with_morto.morto_taken == [True, False]


# ----- scoring --------------------------------------------------------------------------


@rule
def test_the_scoring_breakdown_of_a_deal_with_a_batida(preset: Preset) -> None:
    card = preset.card_value.value
    clean = preset.clean_canastra_bonus.value
    dirty = preset.dirty_canastra_bonus.value
    batida = preset.batida_bonus.value
    red = preset.red_three_value.value
    morto = preset.morto_penalty.value
    s = position(
        preset,
        hands=["QC", "KD KS 9H"],
        melds=[(0, CLEAN_RUN), (0, DIRTY_RUN), (0, "JH QH KH"), (1, "9C TC JC")],
        red_threes=["3H 3D", "3H"],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    assert s.is_over and s.went_out == 0
    side0, side1 = score_deal(s)
    assert side0.table_cards == 17 * card
    assert side0.canastras == {"clean": clean, "dirty": dirty}
    assert side0.canastra_counts == {"clean": 1, "dirty": 1}
    assert side0.batida == batida
    assert side0.red_threes == 2 * red
    assert side0.morto_penalty == 0
    assert side0.hand_cards == 0
    assert side0.untaken_morto_cards == 0
    assert side0.total == 17 * card + clean + dirty + batida + 2 * red
    assert side1.table_cards == 3 * card
    assert side1.canastras == {}
    assert side1.batida == 0
    assert side1.red_threes == -red
    assert side1.morto_penalty == -morto
    assert side1.hand_cards == -3 * card
    assert side1.total == 3 * card - red - morto - 3 * card


@rule
@pytest.mark.parametrize("more", ["", "7H"], ids=["ace-king-four-two-three", "and-a-seven"])
def test_every_card_is_worth_the_same(preset: Preset, more: str) -> None:
    card = preset.card_value.value
    left = f"AS KD 4C {more} 2H 3S"
    s = position(
        preset,
        hands=["QC", left],
        melds=[(0, CLEAN_RUN), (0, "QH KH AH 2D")],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard QC")
    side0, side1 = score_deal(s)
    assert side0.table_cards == 11 * card
    assert side1.hand_cards == -len(left.split()) * card


@rule
def test_the_stock_running_out_ends_the_deal_without_a_batida(preset: Preset) -> None:
    card = preset.card_value.value
    morto = preset.morto_penalty.value
    s = position(
        preset,
        hands=["9H 5C", "KD KS"],
        melds=[(1, "4D 5D 6D 7D 8D 9D TD")],
        stock="8C",
        mortos=[MORTO_A, MORTO_B],
    )
    play(s, 0, "draw")
    assert s.stock == [] and not s.is_over
    play(s, 0, "discard 9H")  # the player who drew the last card finishes the turn
    assert s.is_over
    assert s.end_reason == "stock_out"
    assert s.went_out == NOBODY
    assert rejected(s, 1, "draw") == Reason.DEAL_OVER
    side0, side1 = score_deal(s)
    assert (side0.batida, side1.batida) == (0, 0)
    assert (side0.morto_penalty, side1.morto_penalty) == (-morto, -morto)
    assert side0.hand_cards == -2 * card
    assert side0.total == -2 * card - morto
    assert side1.total == 7 * card + preset.clean_canastra_bonus.value - morto - 2 * card


# ----- the match ------------------------------------------------------------------------


@rule_at_each_table_size
def test_a_match_is_one_deal(preset: Preset, n_players: int) -> None:
    m = Match(preset.knobs, n_players, seed=5)
    play_out(m.deal)
    scores = [sc.total for sc in score_deal(m.deal)]
    m.finish_deal()
    assert m.is_over
    assert m.deal_scores == [scores]
    assert m.totals == scores
    if scores[0] == scores[1]:
        assert m.winner == DRAWN
    else:
        assert m.winner == scores.index(max(scores))
    with pytest.raises(ValueError):
        m.finish_deal()


@rule
def test_a_tie_in_the_one_deal_is_a_draw(preset: Preset) -> None:
    knobs = preset.knobs
    assert knobs.target_score == 0
    assert decide(knobs, [150, 150], 1, 0) == DRAWN
    assert decide(knobs, [150, 90], 1, 1) == 0
    assert decide(knobs, [-90, -20], 1, 0) == 1


@rule
def test_a_match_to_a_target_score_by_override(preset: Preset) -> None:
    knobs = make_rules(preset.name, {"target_score": 3000})
    assert decide(knobs, [2900, 1000], 1, 0) == NOBODY
    assert decide(knobs, [3000, 1000], 2, 0) == 0
    assert decide(knobs, [3100, 3200], 3, 0) == 1  # both past it: the highest total wins


# ----- what a seat sees -----------------------------------------------------------------


@rule
def test_only_the_top_card_of_the_pile_is_visible(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H", "KD KS"], pile="9C JD 8H")
    for seat in (0, 1):
        view = seat_view(s, seat)
        assert view["pile"] is None
        assert view["pile_top"] == "8H"
        assert view["pile_size"] == 3
        seen = visible_cards(s, seat)
        assert parse_card("8H") in seen
        assert parse_card("9C") not in seen and parse_card("JD") not in seen  # buried
    view = seat_view(s, 1)
    assert view["hand"] == ["KD", "KS"]
    assert view["hand_sizes"] == [2, 2]
    assert parse_card("4H") not in visible_cards(s, 1)  # the other hand stays hidden
    assert view["mortos"] is None  # face down


# ----- rejections -----------------------------------------------------------------------


def _in_draw_phase(preset: Preset) -> DealState:
    return position(
        preset,
        hands=["4H 5H 6H 9C 3C 3S 3S 2D KS", "KD QS QH"],
        melds=[(0, "5C 2S 7C"), (1, "8D 9D TD")],
        pile="JC 8H",
        stock="4D 6D",
    )


def _in_play_phase(preset: Preset) -> DealState:
    s = _in_draw_phase(preset)
    play(s, 0, "draw")
    return s


def _locked(preset: Preset) -> DealState:
    return position(preset, hands=["4H 5H 6H", "KD QS QH"], pile="8H 3S", stock="4D 6D")


def _cannot_go_out(preset: Preset) -> DealState:
    return position(
        preset,
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )


@rule
@pytest.mark.parametrize(
    ("make", "seat", "move", "reason"),
    [
        (_in_draw_phase, 1, "draw", Reason.NOT_YOUR_TURN),
        (_in_play_phase, 1, "discard KD", Reason.NOT_YOUR_TURN),
        (_in_draw_phase, 0, "meld 4H 5H 6H", Reason.MUST_DRAW_FIRST),
        (_in_draw_phase, 0, "discard 9C", Reason.MUST_DRAW_FIRST),
        (_in_play_phase, 0, "draw", Reason.ALREADY_DREW),
        (_in_play_phase, 0, "take @0", Reason.ALREADY_DREW),
        (_locked, 0, "take 4H 5H", Reason.DISCARD_PILE_LOCKED),
        (_in_draw_phase, 0, "take @0", Reason.TOP_CARD_NOT_USED),
        (_in_draw_phase, 0, "take 4H 5H", Reason.TOP_CARD_NOT_USED),
        (_in_play_phase, 0, "meld 4H 5H 9C", Reason.INVALID_MELD),
        (_in_play_phase, 0, "add @0 2D", Reason.TOO_MANY_WILDS),
        (_in_play_phase, 0, "meld 3C 3S 3S", Reason.THREES_CANNOT_BE_MELDED),
        (_in_play_phase, 0, "meld 7H 8H 9H", Reason.CARD_NOT_IN_HAND),
        (_in_play_phase, 0, "discard AS", Reason.CARD_NOT_IN_HAND),
        (_in_play_phase, 0, "add @1 KS", Reason.NOT_YOUR_MELD),
        (_in_draw_phase, 0, "take @1", Reason.NOT_YOUR_MELD),
        (_in_play_phase, 0, "add @5 KS", Reason.UNKNOWN_MELD),
        (_in_play_phase, 0, "add @0 KS", Reason.CARD_DOES_NOT_FIT),
        (_cannot_go_out, 0, "meld JH QH KH", Reason.MUST_KEEP_A_CARD_TO_DISCARD),
    ],
)
def test_a_rejected_move_names_its_reason_and_changes_nothing(
    preset: Preset,
    make: Callable[[Preset], DealState],
    seat: int,
    move: str,
    reason: Reason,
) -> None:
    assert rejected(make(preset), seat, move) == reason
