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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from tranca_rules.presets import Rules, make_rules

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
