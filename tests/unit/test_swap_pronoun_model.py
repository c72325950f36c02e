"""The learned reading of "her" and "his" (debias._pronoun_model, issue 27): the constructions a
rule list misses, swapped and swapped back; the audit trail in the spans; the shipped weights
(JSON only, their recorded digest, a rebuild where the Debian texts are at hand); and the held-out
accuracy on unambiguous slots of texts the model was not trained on."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from debias import PronounModel, describe_swap, load_pronoun_model, pronoun_slot_features, resolve_pronoun, swap, swap_texts

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "data" / "pronoun_heldout_sample.jsonl"
# Floors for the held-out slots (the sample of documents kept out of training); the training
# script measured 0.978 ("her") and 0.995 ("his") on all of them.
HER_FLOOR = 0.95
HIS_FLOOR = 0.97

# (input, expected once) with names="builtin"; each must also swap back to its input.
CONSTRUCTIONS = [
    # double objects
    ("They were teaching him chess.", "They were teaching her chess."),
    ("The treaty granted him 200 hectares of land.", "The treaty granted her 200 hectares of land."),
    ("The goal earned him a place in the squad.", "The goal earned her a place in the squad."),
    ("The council awarded him a pension.", "The council awarded her a pension."),
    ("The film won him an award in 1998.", "The film won her an award in 1998."),
    ("The mistake cost him dearly.", "The mistake cost her dearly."),
    ("They offered him the chair of physics.", "They offered her the chair of physics."),
    ("His mother bought him a violin.", "Her father bought her a violin."),
    ("The club paid him 5,000 pounds a year.", "The club paid her 5,000 pounds a year."),
    ("Her uncle taught her Latin and Greek.", "His aunt taught him Latin and Greek."),
    # bare infinitives after let/help/have/watch/make/see/hear
    ("They let him leave after a week.", "They let her leave after a week."),
    ("Friends helped him find a publisher.", "Friends helped her find a publisher."),
    ("We watched him sing at the festival.", "We watched her sing at the festival."),
    ("The coach made him run laps.", "The coach made her run laps."),
    ("The director had him rewrite the ending.", "The director had her rewrite the ending."),
    ("Nobody heard him speak again.", "Nobody heard her speak again."),
    ("The doctors let him go home.", "The doctors let her go home."),
    ("Her sister helped her move to Boston.", "His brother helped him move to Boston."),
    ("Her parents made her practise every day.", "His parents made him practise every day."),
    ("I saw him climb the wall.", "I saw her climb the wall."),
    # an object before a particle, a predicative or a resultative
    ("The surgeons put him back together.", "The surgeons put her back together."),
    ("The final race left him third overall.", "The final race left her third overall."),
    ("The rebels held him prisoner for a year.", "The rebels held her prisoner for a year."),
    ("The voters elected him mayor in 1990.", "The voters elected her mayor in 1990."),
    ("The fall knocked him unconscious.", "The fall knocked her unconscious."),
    ("The board appointed him chairman.", "The board appointed her chairwoman."),
    ("The scandal drove him out of office.", "The scandal drove her out of office."),
    ("They painted him green for the play.", "They painted her green for the play."),
    ("The news made him furious.", "The news made her furious."),
    ("The jury found him guilty of fraud.", "The jury found her guilty of fraud."),
    # gerund subjects
    ("The film ends with him laughing.", "The film ends with her laughing."),
    ("The story closes with him walking away.", "The story closes with her walking away."),
    ("I remember him singing in the choir.", "I remember her singing in the choir."),
    ("They caught him sleeping on duty.", "They caught her sleeping on duty."),
    # a possessive before a noun phrase: "her", never "hers"
    ("She married him against her will.", "He married her against his will."),
    ("He married her against his will.", "She married him against her will."),
    ("He arrived with his ever loyal wife.", "She arrived with her ever loyal husband."),
    ("She arrived with her ever loyal husband.", "He arrived with his ever loyal wife."),
    ("He kept his will in a drawer.", "She kept her will in a drawer."),
    ("She lost her only son in the war.", "He lost his only daughter in the war."),
    ("He spent his early years in Lyon.", "She spent her early years in Lyon."),
    ("She gave her support to the bill.", "He gave his support to the bill."),
    ("He did his best to help.", "She did her best to help."),
    ("She made her debut at La Scala.", "He made his debut at La Scala."),
    # spans of time, counts and idioms as second objects; a comparative adverb after an object
    ("The book took him two years to write.", "The book took her two years to write."),
    ("The repairs cost her three months of work.", "The repairs cost him three months of work."),
    ("The firm paid him one hundred guilders.", "The firm paid her one hundred guilders."),
    ("The deal secured him seventy-five per cent of the profits.", "The deal secured her seventy-five per cent of the profits."),
    ("The guards bound him hand and foot.", "The guards bound her hand and foot."),
    ("We met him two years ago.", "We met her two years ago."),
    ("I saw her ten days before she left.", "I saw him ten days before he left."),
    ("Her parents made her always wait.", "His parents made him always wait."),
    ("The visit reminded him more strongly of home.", "The visit reminded her more strongly of home."),
    ("He regretted one of his more offensively intellectually arrogant remarks.",
     "She regretted one of her more offensively intellectually arrogant remarks."),
    # standalone "his"/"hers"
    ("The decision was his alone.", "The decision was hers alone."),
    ("The fault is hers, not mine.", "The fault is his, not mine."),
    ("A friend of his from school called.", "A friend of hers from school called."),
    # issue 27, session 3: constructions seen on modern held-out prose (An Anarchist FAQ, link-grammar)
    ("Her aunt kissed her goodbye at the station.", "His uncle kissed him goodbye at the station."),
    ("The crowd bade him farewell in 1921.", "The crowd bade her farewell in 1921."),
    ("Reporters followed him day and night.", "Reporters followed her day and night."),
    ("The injury did not stop him finishing the race.", "The injury did not stop her finishing the race."),
    ("Illness prevented her attending the ceremony.", "Illness prevented him attending the ceremony."),
    ("The fans tried to stop his wedding.", "The fans tried to stop her wedding."),
    ("Just look at him jump!", "Just look at her jump!"),
    ("The estate was his thereafter.", "The estate was hers thereafter."),
    ("People queued to listen to her sing.", "People queued to listen to him sing."),
    ("Critics looked at his work again.", "Critics looked at her work again."),
    ("Looking at his own records, he disagreed.", "Looking at her own records, she disagreed."),
    ("Later research proved him correct.", "Later research proved her correct."),
    ("The illness left him bald within a year.", "The illness left her bald within a year."),
    ("The guards pinned him motionless against the fence.", "The guards pinned her motionless against the fence."),
    ("She sold her flat in 2005.", "He sold his flat in 2005."),
    ("She lost her final to Graf.", "He lost his final to Graf."),
    ("Grief drove her mad with sorrow.", "Grief drove him mad with sorrow."),
    ("She did her best in the final.", "He did his best in the final."),
    ("He released his single in 2005.", "She released her single in 2005."),
    ("She mourned her rival's defeat.", "He mourned his rival's defeat."),
    ("The press called him \"a dangerous radical\" in 1905.", "The press called her \"a dangerous radical\" in 1905."),
    ("The charges against her \"which nobody believed\" were dropped.", "The charges against him \"which nobody believed\" were dropped."),
    ("The nickname stuck to him thereafter.", "The nickname stuck to her thereafter."),
    ("No court was open to her whereby she could appeal.", "No court was open to him whereby he could appeal."),
    ("Each voter may state his or her own preference.", "Each voter may state her or his own preference."),
    ("Each pupil keeps his or her notebook.", "Each pupil keeps her or his notebook."),
    ("Parents should not let him or her stay up late.", "Parents should not let her or him stay up late."),
    ("The gifts went to them and her family.", "The gifts went to them and his family."),
    ("The split saw him found his own party.", "The split saw her found her own party."),
    ("Nothing stopped her demanding \"a fair wage\" for all.", "Nothing stopped him demanding \"a fair wage\" for all."),
    ("I remember him saying that the war was lost.", "I remember her saying that the war was lost."),
    ("Workers owed obedience to \"his\" party, not to the class.", "Workers owed obedience to \"her\" party, not to the class."),
    ("The decision was \"hers\" alone.", "The decision was \"his\" alone."),
    ("The magazine ranked him third on its list of artists.", "The magazine ranked her third on its list of artists."),
    ("The organisers seeded her second at Wimbledon.", "The organisers seeded him second at Wimbledon."),
    ("The win put him top of the league.", "The win put her top of the league."),
    ("The season saw him score 20 goals.", "The season saw her score 20 goals."),
    ("I saw his son 20 years later.", "I saw her daughter 20 years later."),
    ("The bug could result in him unknowingly installing a virus.", "The bug could result in her unknowingly installing a virus."),
    ("Guests saw her quietly leaving the hall.", "Guests saw him quietly leaving the hall."),
    ("Friends worried about his rapidly failing health.", "Friends worried about her rapidly failing health."),
    ("The regime banished him thence to Siberia.", "The regime banished her thence to Siberia."),
    ("Her doctors thought her strong and healthy.", "His doctors thought him strong and healthy."),
    ("She married her strong and silent husband.", "He married his strong and silent wife."),
    ("The court let him finally return in 1962.", "The court let her finally return in 1962."),
    ("He had his first show in 1969.", "She had her first show in 1969."),
    # issue 27, session 3 (the survey's CDA run side by side): a preposition that heads the noun
    # phrase after a possessive ("his like", "his inside pocket"), and a noun after a perception
    # verb's "her" before a preposition or the clause's end; both readings
    ("We'll not see his like again.", "We'll not see her like again."),
    ("The world will never see her like again.", "The world will never see his like again."),
    ("We shall not look upon his like.", "We shall not look upon her like."),
    ("Poets of her like are rare.", "Poets of his like are rare."),
    ("They treated him like family.", "They treated her like family."),
    ("She loved him like a brother.", "He loved her like a sister."),
    ("The fault was his like everyone said.", "The fault was hers like everyone said."),
    ("He reached into his inside jacket pocket.", "She reached into her inside jacket pocket."),
    ("She kept the note in her inside coat pocket.", "He kept the note in his inside coat pocket."),
    ("He kept the note in his inside pocket.", "She kept the note in her inside pocket."),
    ("She neglected her outside business interests.", "He neglected his outside business interests."),
    ("They locked him inside the barn.", "They locked her inside the barn."),
    ("We met him outside school.", "We met her outside school."),
    ("I saw her photograph in the paper.", "I saw his photograph in the paper."),
    ("We saw his photograph on the wall.", "We saw her photograph on the wall."),
    ("Nobody noticed her photograph.", "Nobody noticed his photograph."),
    ("Millions watched her debut on television.", "Millions watched his debut on television."),
    ("I saw her photograph the bird.", "I saw him photograph the bird."),
    ("The crowd saw him murder the guard.", "The crowd saw her murder the guard."),
    ("I saw him leave.", "I saw her leave."),
    ("We watched him walk to the door.", "We watched her walk to the door."),
    # session 4, from the development half of Wesnoth's campaigns and the training texts: bare
    # infinitives after "let", modals, "gone", coordination, scare quotes, second objects, "will" the noun
    ('They would not let him escape.', 'They would not let her escape.'),
    ('Do not let him face them alone.', 'Do not let her face them alone.'),
    ('The captain let him march in front.', 'The captain let her march in front.'),
    ('The doctors let him return home.', 'The doctors let her return home.'),
    ('He let his hair down after the show.', 'She let her hair down after the show.'),
    ('Whoever beats him will win the title.', 'Whoever beats her will win the title.'),
    ('Against his will, he signed the papers.', 'Against her will, she signed the papers.'),
    ('The terms of his will were read aloud.', 'The terms of her will were read aloud.'),
    ('With him gone, the band split up.', 'With her gone, the band split up.'),
    ('For him that meant exile.', 'For her that meant exile.'),
    ('To speak of him meant exile.', 'To speak of her meant exile.'),
    ('The coach made him slowly rebuild his game.', 'The coach made her slowly rebuild her game.'),
    ('The crowd around him quickly raised their flags.', 'The crowd around her quickly raised their flags.'),
    ('The blast threw him clear enough to survive.', 'The blast threw her clear enough to survive.'),
    ('The mayor thanked him and his wife.', 'The mayor thanked her and her husband.'),
    ("The article repeats his and Lenin's claims.", "The article repeats her and Lenin's claims."),
    ("Critics judged his and his party's record.", "Critics judged her and her party's record."),
    ('Like his barefaced kin, he fought with an axe.', 'Like her barefaced kin, she fought with an axe.'),
    ('He finished his "confession" in prison.', 'She finished her "confession" in prison.'),
    ('The review gives his work an air of mystery.', 'The review gives her work an air of mystery.'),
    ('He showed his students a simple trick.', 'She showed her students a simple trick.'),
    ('They signed a treaty with him eighteen years ago.', 'They signed a treaty with her eighteen years ago.'),
    ('The ring made him ever more suspicious and cruel.', 'The ring made her ever more suspicious and cruel.'),
    ('How could his will be ignored?', 'How could her will be ignored?'),
    ('A friend of his will come tomorrow.', 'A friend of hers will come tomorrow.'),
    # session 4, biography sentences of our own: predicate adjectives, ranks, numbers, "time to"
    ('His captors released him unharmed.', 'Her captors released her unharmed.'),
    ('His family reported him missing in 1998.', 'Her family reported her missing in 1998.'),
    ('The loss left him heartbroken.', 'The loss left her heartbroken.'),
    ('The painting shows him seated at a desk.', 'The painting shows her seated at a desk.'),
    ('In his anxious inquiry he forgot the letter.', 'In her anxious inquiry she forgot the letter.'),
    ('The regiment promoted him lieutenant in 1812.', 'The regiment promoted her lieutenant in 1812.'),
    ('The tribunal fined him 5,000 euros.', 'The tribunal fined her 5,000 euros.'),
    ('She bore him two children.', 'He bore her two children.'),
    ('The post gave him time to write.', 'The post gave her time to write.'),
    ('His brother lent him money to start a business.', 'Her sister lent her money to start a business.'),
    ('He gave his time to charity.', 'She gave her time to charity.'),
    ('She gave her support to the campaign.', 'He gave his support to the campaign.'),
    # session 4: gerunds before a name or a number, verbs of command, British spellings, titles,
    # "him or his", place adverbs, "only" before a number, distances, quoted predicates
    ('The teacher caught him reading Tolstoy in class.', 'The teacher caught her reading Tolstoy in class.'),
    ('The coach had him running five miles a day.', 'The coach had her running five miles a day.'),
    ('The colonel ordered him shot at dawn.', 'The colonel ordered her shot at dawn.'),
    ('The abbot refused him permission to leave.', 'The abbess refused her permission to leave.'),
    ('The board made him apologise in public.', 'The board made her apologise in public.'),
    ('The academy made him honorary president in 1920.', 'The academy made her honorary president in 1920.'),
    ('The war left him ruler of a small state.', 'The war left her ruler of a small state.'),
    ('The orchestra named him principal conductor.', 'The orchestra named her principal conductor.'),
    ('Nobody knew whether the house belonged to him or his cousin.', 'Nobody knew whether the house belonged to her or her cousin.'),
    ('The captain ordered him ashore at once.', 'The captain ordered her ashore at once.'),
    ('The committee gave him only three weeks to reply.', 'The committee gave her only three weeks to reply.'),
    ('The blast threw him ten metres into the air.', 'The blast threw her ten metres into the air.'),
    ('Fans still remember him scoring twice at Wembley.', 'Fans still remember her scoring twice at Wembley.'),
    ('Interest in him revived after his death.', 'Interest in her revived after her death.'),
    ('The defeat left him "shattered", he said.', 'The defeat left her "shattered", she said.'),
    ('The urgency of his need was plain.', 'The urgency of her need was plain.'),
    # session 4: compound predicates, scores, a verb's object after a bare infinitive, postures,
    # "back" after verbs of bringing and turning, past tenses after an object
    ('Fans carried him shoulder-high from the ground.', 'Fans carried her shoulder-high from the ground.'),
    ('The champion beat him 6–2, 6–1 in the final.', 'The champion beat her 6–2, 6–1 in the final.'),
    ('A colleague helped him design the new bridge.', 'A colleague helped her design the new bridge.'),
    ('A farmer found him lying injured in a ditch.', 'A farmer found her lying injured in a ditch.'),
    ('The club tried to lure him back in 1999.', 'The club tried to lure her back in 1999.'),
    ('Soldiers turned him back at the border.', 'Soldiers turned her back at the border.'),
    ('He turned his back on politics.', 'She turned her back on politics.'),
    ('He hurt his back in training.', 'She hurt her back in training.'),
    ('Two of the sons she bore him died in infancy.', 'Two of the daughters he bore her died in infancy.'),
    ('I did not see his face the whole time.', 'I did not see her face the whole time.'),
    ("I saw him cross the street.", "I saw her cross the street."),  # a known miss of session 3
    # session 4: more titles, coordinated predicates, "well", "later" before a past tense
    ('The governor appointed him resident at Kano in 1910.', 'The governor appointed her resident at Kano in 1910.'),
    ('His tutors found him bright but lazy.', 'Her tutors found her bright but lazy.'),
    ('The court found him careless but not criminally liable.', 'The court found her careless but not criminally liable.'),
    ('Those who knew him well doubted the story.', 'Those who knew her well doubted the story.'),
    ('The soldier who captured him later became a banker.', 'The soldier who captured her later became a banker.'),
    ('In his later years he wrote poetry.', 'In her later years she wrote poetry.'),
    ('The minister wanted him appointed governor.', 'The minister wanted her appointed governor.'),
    # session 4: titles after a modifier, "midway", "awarded", penalties, "further money", "said"
    ('The king appointed him court painter in 1630.', 'The queen appointed her court painter in 1630.'),
    ('The club sacked him midway through the season.', 'The club sacked her midway through the season.'),
    ('The society awarded him honorary membership.', 'The society awarded her honorary membership.'),
    ('The jury awarded his film the first prize.', 'The jury awarded her film the first prize.'),
    ('An engine failure denied him victory in 1961.', 'An engine failure denied her victory in 1961.'),
    ('The judges docked him ten points.', 'The judges docked her ten points.'),
    ('The bank would not lend him more money.', 'The bank would not lend her more money.'),
    ('Friends close to him said that he was tired.', 'Friends close to her said that she was tired.'),
    ('He told his pupils only the bare facts.', 'She told her pupils only the bare facts.'),
    # session 4: compound titles, "charge of", what is given to be done, numbers in words
    ('The king appointed him commander-in-chief of the army.', 'The queen appointed her commander-in-chief of the army.'),
    ('Congress gave him charge of the navy.', 'Congress gave her charge of the navy.'),
    ('The emir granted him permission to excavate at Nineveh.', 'The emir granted her permission to excavate at Nineveh.'),
    ('The court fined him forty pounds.', 'The court fined her forty pounds.'),
    ('The book brought him invitations to lecture in America.', 'The book brought her invitations to lecture in America.'),
    ('He told his driver to wait.', 'She told her driver to wait.'),
    # session 4: scare quotes before a name, "half"/"nearer" before a noun
    ('He was pressed by "his" Whitehall advisers.', 'She was pressed by "her" Whitehall advisers.'),
    ('The captain and his half dozen men rode on.', 'The captain and her half dozen women rode on.'),
    ('He injured his nearer leg.', 'She injured her nearer leg.'),
    ('The king gave him half the money.', 'The queen gave her half the money.'),
    # session 4: a bare singular noun after "sell" is the seller's
    ('The worker must sell his labour to live.', 'The worker must sell her labour to live.'),
    ('He refused to sell his strength.', 'She refused to sell her strength.'),
    ('The critics sold him short.', 'The critics sold her short.'),
    # session 4: "overnight", female titles, what a ruler grants, ordinals in digits, payments
    ('The discovery made him famous overnight.', 'The discovery made her famous overnight.'),
    ('The bishop ordained him priest in 1080.', 'The bishop ordained her priestess in 1080.'),
    ('The chiefs granted him land by the river.', 'The chiefs granted her land by the river.'),
    ('The king granted his request.', 'The queen granted her request.'),
    ('The magazine ranked him 38th on its list.', 'The magazine ranked her 38th on its list.'),
    ('He just had his 50th birthday.', 'She just had her 50th birthday.'),
    ('The board paid him compensation of £2 million.', 'The board paid her compensation of £2 million.'),
    ('His father paid his fees.', 'Her mother paid her fees.'),
    ("The king granted him lands in Kent.", "The queen granted her lands in Kent."),  # a known miss of session 3
    # session 4: more titles, "less harshly than", an adjective before a payment, a quoted nickname
    ('The pope appointed him apostolic delegate in 1934.', 'The pope appointed her apostolic delegate in 1934.'),
    ('The network made him controller of its radio service.', 'The network made her controller of its radio service.'),
    ('History judged him less harshly than his brother.', 'History judged her less harshly than her sister.'),
    ('The newspaper paid him substantial damages.', 'The newspaper paid her substantial damages.'),
    ('Teammates nicknamed him "Chalky" at school.', 'Teammates nicknamed her "Chalky" at school.'),
    ('He spoke of his "Grand Plan" often.', 'She spoke of her "Grand Plan" often.'),
    # session 4: capitalised compound titles, more titles, "made his Test debut", a predicate before a second verb
    ('Gladstone appointed him Under-Secretary of State in 1882.', 'Gladstone appointed her Under-Secretary of State in 1882.'),
    ('The committee named him flag bearer for the games.', 'The committee named her flag bearer for the games.'),
    ('The king granted him extensive lands in Yorkshire.', 'The queen granted her extensive lands in Yorkshire.'),
    ('The assembly elected him speaker in 1910.', 'The assembly elected her speaker in 1910.'),
    ('He made his Test debut in 1899.', 'She made her Test debut in 1899.'),
    ('Colleagues found him difficult but admired his mastery.', 'Colleagues found her difficult but admired her mastery.'),
    ('He made his major league debut in 1954.', 'She made her major league debut in 1954.'),
    ('The army promoted him colonel in 1916.', 'The army promoted her colonel in 1916.'),
    # session 5, from real Wikipedia text: a recipient after the thing taught, "whose leaves", an
    # ordinal before an aside, "left foot", idioms of lending, scare quotes after "described",
    # "of his" before a past tense, comparatives before "than", hyphenated predicates, "only" and a past
    ('The old master taught his method to a young engraver.', 'The old mistress taught her method to a young engraver.'),
    ('It is a shrine whose walls his followers painted.', 'It is a shrine whose walls her followers painted.'),
    ('He published his second (and last) novel in 1931.', 'She published her second (and last) novel in 1931.'),
    ('He had his first, brief, taste of fame in Paris.', 'She had her first, brief, taste of fame in Paris.'),
    ('He broke his right wrist in the fall.', 'She broke her right wrist in the fall.'),
    ('He lent his name to the campaign.', 'She lent her name to the campaign.'),
    ('In 1921 he outlined his "theory of everything" in a lecture.', 'In 1921 she outlined her "theory of everything" in a lecture.'),
    ('Later he described his "new method" in a pamphlet.', 'Later she described her "new method" in a pamphlet.'),
    ('A cousin of his inherited the estate.', 'A cousin of hers inherited the estate.'),
    ('His pupils stood around him closer than before.', 'Her pupils stood around her closer than before.'),
    ('The reform made him re-electable for life.', 'The reform made her re-electable for life.'),
    ('The poems credited to him only emerged in 1850.', 'The poems credited to her only emerged in 1850.'),
    ('The nurses helped him build strong friendships.', 'The nurses helped her build strong friendships.'),
    ('He was the slave of his master more than of his trade.', 'She was the slave of her mistress more than of her trade.'),
    # session 5, from WikiText-2's validation articles: "left him distraught and his wife", "came to
    # him overnight", "made his acting debut", "saw his cover of the song"
    ('The defeat left him distraught and his family in debt.', 'The defeat left her distraught and her family in debt.'),
    ('The tune came to him overnight.', 'The tune came to her overnight.'),
    ('He made his stage debut at the age of nine.', 'She made her stage debut at the age of nine.'),
    ('A producer heard his version of the ballad on the radio.', 'A producer heard her version of the ballad on the radio.'),
    ('Friends heard him speak of his childhood.', 'Friends heard her speak of her childhood.'),
    # session 5, from the Brown and MASC corpora's development halves: a received noun after
    # adjectives ("cost him acute pain"), "gave him pause", "does him honour", "tell him I", a negated
    # auxiliary, "according to", "once more", "one way or the other", "-ward", an adverb and a
    # predicate, "but" and a preposition, "his most trusted", adjectives in a comma series, debuts
    ('The decision cost him acute pain and years of work.', 'The decision cost her acute pain and years of work.'),
    ('The letter gave him pause.', 'The letter gave her pause.'),
    ('The loss caused him immense and lasting sorrow.', 'The loss caused her immense and lasting sorrow.'),
    ('Such modesty does him honour.', 'Such modesty does her honour.'),
    ("Please tell him I'm sorry.", "Please tell her I'm sorry."),
    ("The jury looked at him and couldn't decide.", "The jury looked at her and couldn't decide."),
    ("The letter that reached him couldn't be answered.", "The letter that reached her couldn't be answered."),
    ('The guards treated him according to the rules.', 'The guards treated her according to the rules.'),
    ('The climb exhausted him once more.', 'The climb exhausted her once more.'),
    ('Money did not sway him one way or the other.', 'Money did not sway her one way or the other.'),
    ('The company sent him westward to find a pass.', 'The company sent her westward to find a pass.'),
    ('He began his westward journey in May.', 'She began her westward journey in May.'),
    ('The voyage left him deeply exhausted and in debt.', 'The voyage left her deeply exhausted and in debt.'),
    ('The crash left him unhurt but in shock.', 'The crash left her unhurt but in shock.'),
    ('He sent his most trusted adviser to Rome.', 'She sent her most trusted adviser to Rome.'),
    ('A smile lit his narrow, bony face.', 'A smile lit her narrow, bony face.'),
    ('He made his New York debut in 1958.', 'She made her New York debut in 1958.'),
    ('The minister, or his deputy, will attend.', 'The minister, or her deputy, will attend.'),
    # session 5, Brown's fiction (development half): "of his and I", "cost him little", "made him
    # sound like", "turned his back as", "stopped his pacing", "felt his empty pocket", "called for
    # his withered, frail mother", "looked at his finger,"
    ('A cousin of his and I went fishing.', 'A cousin of hers and I went fishing.'),
    ('The plan would cost him little at first.', 'The plan would cost her little at first.'),
    ('The echo made him sound like a giant.', 'The echo made her sound like a giant.'),
    ('He turned his back as the judge entered.', 'She turned her back as the judge entered.'),
    ('He stopped his pacing long enough to listen.', 'She stopped her pacing long enough to listen.'),
    ('Nothing could stop him resisting reform.', 'Nothing could stop her resisting reform.'),
    ('He felt his empty pocket and sighed.', 'She felt her empty pocket and sighed.'),
    ('He called for his withered, frail mother.', 'She called for her withered, frail father.'),
    ('He looked at his finger, at the swollen knuckle.', 'She looked at her finger, at the swollen knuckle.'),
    # session 5: a subject's contraction, "right then", "too far", "let him use another"
    ("Just tell him you're his sister.", "Just tell her you're her brother."),
    ('They arrested him right there.', 'They arrested her right there.'),
    ("If you push him too far he'll leave.", "If you push her too far she'll leave."),
    ('He wore his too tight jacket.', 'She wore her too tight jacket.'),
    ('They let him use another name.', 'They let her use another name.'),
    # session 5, ABC news (development half): "to him beforehand", "gave him less time", "stop him running in"
    ('The route was explained to him beforehand.', 'The route was explained to her beforehand.'),
    ('The delay gave him less time to train.', 'The delay gave her less time to train.'),
    ('An injury will not stop him running in the relay.', 'An injury will not stop her running in the relay.'),
    # session 5, web pages (trafilatura's test pages, development half): "his already decaying body"
    ('Searchers found his already decaying body.', 'Searchers found her already decaying body.'),
    # session 5, where the certain rules wrote "him" for "his" on the development halves: "served
    # his time", "asking his advice", "leave his work,", "saw his work bringing", "felt his work to have"
    ('He served his time at a prison in Moscow.', 'She served her time at a prison in Moscow.'),
    ('He visited the old man, asking his advice on the matter.', 'She visited the old woman, asking her advice on the matter.'),
    ('He had to leave his work, abandon his studies, and return.', 'She had to leave her work, abandon her studies, and return.'),
    ('He saw his work bringing profit to others.', 'She saw her work bringing profit to others.'),
    ('He felt his work to have been wasted.', 'She felt her work to have been wasted.'),
    ('They made him work hard.', 'They made her work hard.'),
    # session 5: a comparative predicate after "make"/"keep" ("made him bolder"), not "-er" nouns ("cover")
    ('Praise made him bolder and bolder.', 'Praise made her bolder and bolder.'),
    ('A critic saw his cover of the anthem on television.', 'A critic saw her cover of the anthem on television.'),
    # session 5, film reviews (nltk_data's movie_reviews, development half): a person noun after
    # modifiers ("tells his little girl"), "won his freedom", "makes his living", "his first ever",
    # "make his dream come true", 'gave his "all"', 'telling his "story"', "his opposite", "of his
    # you'd seen", "a friend of hers suggests she", "his hard, black armour", "his soon to be rival"
    ('The father tells his little girl a story.', 'The mother tells her little boy a story.'),
    ('He spent years finding his estranged son.', 'She spent years finding her estranged daughter.'),
    ('He arrived with his loving, down-to-earth wife.', 'She arrived with her loving, down-to-earth husband.'),
    ('His first wife bore him three sons.', 'Her first husband bore her three daughters.'),
    ('The gladiator who won his freedom left Rome.', 'The gladiator who won her freedom left Rome.'),
    ('Now he makes his living as a janitor.', 'Now she makes her living as a janitor.'),
    ('The dragon makes his first ever attack.', 'The dragon makes her first ever attack.'),
    ('He worked to make his dream come true.', 'She worked to make her dream come true.'),
    ('He has not given his "all" to the role.', 'She has not given her "all" to the role.'),
    ('After telling his "snake story" he left.', 'After telling her "snake story" she left.'),
    ('The villain is his opposite in every way.', 'The villain is her opposite in every way.'),
    ("It was the only film of his you'd seen.", "It was the only film of hers you'd seen."),
    ('A friend of hers suggests she rest.', 'A friend of his suggests he rest.'),
    ('Beneath his hard, black armour he is gentle.', 'Beneath her hard, black armour she is gentle.'),
    ('He met his soon to be rival at school.', 'She met her soon to be rival at school.'),
    ('He dragged his violent, sexually charged style into Hollywood.', 'She dragged her violent, sexually charged style into Hollywood.'),
    ('The old teacher teaches his young neighbour about poetry.', 'The old teacher teaches her young neighbour about poetry.'),
    ('The cast makes his work no less impressive.', 'The cast makes her work no less impressive.'),
    ('Nobody could cure his cryogenically frozen wife.', 'Nobody could cure her cryogenically frozen husband.'),
    ('Fans laughed at his well known one-liners.', 'Fans laughed at her well known one-liners.'),
    # session 5, film reviews again: "hears him say", "make him look threatening", "nursed him back to
    # health", "left him years ago", "caught him instead of", a phrasal verb after a bare infinitive's host
    ('She heard him say goodbye to his mother.', 'He heard her say goodbye to her father.'),
    ('The armour makes him look threatening.', 'The armour makes her look threatening.'),
    ('Settlers nursed him back to health.', 'Settlers nursed her back to health.'),
    ('His wife would have left him years ago.', 'Her husband would have left her years ago.'),
    ('The police caught him instead of the thief.', 'The police caught her instead of the thief.'),
    ('We watched him walk away.', 'We watched her walk away.'),
    # session 6, GAP's Wikipedia snippets (development set): a debut after up to four capitalised
    # words, the passive of a double-object verb ("was awarded his blue"), "back together", "due to",
    # a preterite after an object ("sprang up"), an ordinal past the tenth, renaming verbs
    ('He made his Metropolitan Opera House debut in 1990.', 'She made her Metropolitan Opera House debut in 1990.'),
    ('He was awarded his blue in 1902.', 'She was awarded her blue in 1902.'),
    ('She was given her first role at nine.', 'He was given his first role at nine.'),
    ('The surgeons put him back together.', 'The surgeons put her back together.'),
    ('She admired him due to his courage.', 'He admired her due to her courage.'),
    ('A cult devoted to him sprang up in the valley.', 'A cult devoted to her sprang up in the valley.'),
    ('A puncture left him fourteenth.', 'A puncture left her fourteenth.'),
    ('The crowd rechristened him King Carl.', 'The crowd rechristened her Queen Carla.'),
    ('Among his more than 300 paintings is a portrait of Lenin.', 'Among her more than 300 paintings is a portrait of Lenin.'),
    ('She looked at him more than twice.', 'He looked at her more than twice.'),
    ("The win earned him Baxter's approval.", "The win earned her Baxter's approval."),
    ('He is remembered for his long and patient service.', 'She is remembered for her long and patient service.'),
    ('Fans saw his popularity soar.', 'Fans saw her popularity soar.'),
    ('They saw his ranking climb.', 'They saw her ranking climb.'),
    # GUM's texts (development half): "teach him mathematics", "pay him homage", a number after
    # "deliver", a debut after open words of any case ("made his American film debut")
    ('His uncle would teach him mathematics privately.', 'Her aunt would teach her mathematics privately.'),
    ('Crowds came to pay him homage.', 'Crowds came to pay her homage.'),
    ('The deal would deliver him one million more.', 'The deal would deliver her one million more.'),
    ('He made his American film debut in 2004.', 'She made her American film debut in 2004.'),
    ('They made him captain on his debut.', 'They made her captain on her debut.'),
    # Universal Dependencies' English treebanks (EWT's web text, GUM, LinES, ParTUT; development
    # halves): "prior to", a past before a preposition after "of him", "found his calling"
    ('I spoke to him prior to the meeting.', 'I spoke to her prior to the meeting.'),
    ('A part of him died with it.', 'A part of her died with it.'),
    ('In Paris he found his calling as a painter.', 'In Paris she found her calling as a painter.'),
    ('They found him calling for help.', 'They found her calling for help.'),
    ('Get him talking about the war and he never stops.', 'Get her talking about the war and she never stops.'),
    ('We met him face to face.', 'We met her face to face.'),
    ('She turned her face to the wall.', 'He turned his face to the wall.'),
    ('They were glad to have him back for the summer.', 'They were glad to have her back for the summer.'),
    ('He had his back to the wall.', 'She had her back to the wall.'),
    ('The storm kept him home all week.', 'The storm kept her home all week.'),
    ('The guide steered him right into the swamp.', 'The guide steered her right into the swamp.'),
    ('She still remembers him 30 years later.', 'He still remembers her 30 years later.'),
    ('The film opens with him getting caught.', 'The film opens with her getting caught.'),
    ('The search for him takes the soldiers across the river.', 'The search for her takes the soldiers across the river.'),
    ('The war left him grief-stricken, and he never painted again.', 'The war left her grief-stricken, and she never painted again.'),
    ('I had bid him good-bye at the station.', 'I had bid her good-bye at the station.'),
    ('The gang executes him mob-style.', 'The gang executes her mob-style.'),
    ('It was sad to see him over-acting in that role.', 'It was sad to see her over-acting in that role.'),
    ('He kept up his "you will never win" routine for years.', 'She kept up her "you will never win" routine for years.'),
    # GAP's validation set (read from session 6 on): a currency amount, "with him defending her",
    # "footage of him dealing the blow", "check on him first.", "will supply" is a verb
    ('The minister offered him US$5 million to resign.', 'The minister offered her US$5 million to resign.'),
    ('The club paid him £40,000 a year.', 'The club paid her £40,000 a year.'),
    ('The film ends with him defending her from the mob.', 'The film ends with her defending him from the mob.'),
    ('The tape has footage of him dealing the fatal blow.', 'The tape has footage of her dealing the fatal blow.'),
    ('She went to check on him first.', 'He went to check on her first.'),
    ('The novel was his first.', 'The novel was her first.'),
    ('His second marriage was less happy than his first.', 'Her second marriage was less happy than her first.'),
    ('We watched him point out the faults.', 'We watched her point out the faults.'),
    ('She gave him work to do.', 'He gave her work to do.'),
    ("I can't give him too many shocks at once.", "I can't give her too many shocks at once."),
    ('He dropped his earlier and livelier style.', 'She dropped her earlier and livelier style.'),
    ('Ah, yes -- his half of a refrigerator stood outside.', 'Ah, yes -- her half of a refrigerator stood outside.'),
    # MASC and Brown (development halves): a degree word and a predicate after an object, a name
    # and its past after a preposition's object, "won his rights", "give his approval or"
    ('The clerk looks at him very puzzled, and says no.', 'The clerk looks at her very puzzled, and says no.'),
    ('She tried her very best.', 'He tried his very best.'),
    ('For him Hunt created a house.', 'For her Hunt created a house.'),
    ('Critics agreed that he had won his rights as an artist.', 'Critics agreed that she had won her rights as an artist.'),
    ('He may give his approval or refuse it.', 'She may give her approval or refuse it.'),
    # film reviews (development half): "knocks him cold", "replaced him just fine", "allows him
    # space to move", "finds him still living with"
    ('The thief knocks him cold.', 'The thief knocks her cold.'),
    ('They replaced him just fine.', 'They replaced her just fine.'),
    ('He got his just reward.', 'She got her just reward.'),
    ('The script allows him space to move.', 'The script allows her space to move.'),
    ('The film finds him still living with his parents.', 'The film finds her still living with her parents.'),
    # web text and fiction (EWT, Brown; development halves)
    ("Don't blame him please, he is lonely.", "Don't blame her please, she is lonely."),
    ('I handle him every few days.', 'I handle her every few days.'),
    ('He watched her every move.', 'She watched his every move.'),
    ('You might give him sort of a nudge.', 'You might give her sort of a nudge.'),
    ('Fans came to show his support.', 'Fans came to show her support.'),
    ('He has really earned his success.', 'She has really earned her success.'),
    ('It spoils his otherwise good performance.', 'It spoils her otherwise good performance.'),
    ('He gives his undoubtedly best performance here.', 'She gives her undoubtedly best performance here.'),
    ('Except for his sometimes too active eyes, he is calm.', 'Except for her sometimes too active eyes, she is calm.'),
    ('He visited his recently married sister.', 'She visited her recently married brother.'),
    ('They made him always wait for hours.', 'They made her always wait for hours.'),
    ('To his not inconsiderable disappointment, it rained.', 'To her not inconsiderable disappointment, it rained.'),
    ('Let him not look back in anger.', 'Let her not look back in anger.'),
    ('I want the room prepared for him He is a most unusual lad.', 'I want the room prepared for her She is a most unusual lass.'),
    ('His classmates kept calling him stupid and lazy.', 'Her classmates kept calling her stupid and lazy.'),
    ('The illness can render him virtually catatonic or violent.', 'The illness can render her virtually catatonic or violent.'),
    ('He said the film would be his last, and retired.', 'She said the film would be her last, and retired.'),
    ('He signed his last will and testament in March.', 'She signed her last will and testament in March.'),
    ('He owed his early success partly to the patronage of the Medici.', 'She owed her early success partly to the patronage of the Medici.'),
    ('He started his publishing career at Elsevier.', 'She started her publishing career at Elsevier.'),
    ('He has used his half of the money to buy a boat.', 'She has used her half of the money to buy a boat.'),
    ('Parole was denied, with him being eligible again in 2022.', 'Parole was denied, with her being eligible again in 2022.'),
    ('She got angry with him knowing he was wrong.', 'He got angry with her knowing she was wrong.'),
    ('They asked leaders to call him daily and thank him.', 'They asked leaders to call her daily and thank her.'),
    ('His past came back to haunt him following his diagnosis.', 'Her past came back to haunt her following her diagnosis.'),
    ('The guards were told to bring him backstage after the show.', 'The guards were told to bring her backstage after the show.'),
    ('His connections enabled him access to the studios.', 'Her connections enabled her access to the studios.'),
    ('The portrait procured him admission to the Academy.', 'The portrait procured her admission to the Academy.'),
    ('The clerk found him apparently copying letters.', 'The clerk found her apparently copying letters.'),
    ('The series led to him being awarded an honorary degree.', 'The series led to her being awarded an honorary degree.'),
    ('The streak would culminate in him winning the tournament.', 'The streak would culminate in her winning the tournament.'),
    ("He released his 'Greatest Hits' album in 1990.", "She released her 'Greatest Hits' album in 1990."),
    ("The hackers nicknamed him 'Bucky' after his teeth.", "The hackers nicknamed her 'Bucky' after her teeth."),
    ('He is most famous for his "Divina Commedia".', 'She is most famous for her "Divina Commedia".'),
    ('He worked hard to make his dream a reality.', 'She worked hard to make her dream a reality.'),
    ('The crowd saw his love for his job and smiled.', 'The crowd saw her love for her job and smiled.'),
    ('He gave his word that he would return.', 'She gave her word that she would return.'),
    ('The drug gives him super-strength and durability.', 'The drug gives her super-strength and durability.'),
    ('He tried to keep his drinking a secret.', 'She tried to keep her drinking a secret.'),
    ('He is making his very first flight to Mendoza.', 'She is making her very first flight to Mendoza.'),
    ('The story involves him piloting a small airplane.', 'The story involves her piloting a small airplane.'),
    ('He made his only album with the band in 1995.', 'She made her only album with the band in 1995.'),
    ('The coach gave him only a glance.', 'The coach gave her only a glance.'),
    ('He looked for allies that could help him overthrow Ark.', 'She looked for allies that could help her overthrow Ark.'),
    ('His goals helped his side Porto to the title.', 'Her goals helped her side Porto to the title.'),
    ('His form earned him selection for the national team.', 'Her form earned her selection for the national team.'),
    ('The editor gave his selection of poems to the printer.', 'The editor gave her selection of poems to the printer.'),
    ('The tour caused the singers to notice his work.', 'The tour caused the singers to notice her work.'),
    ('Nobody noticed him leave.', 'Nobody noticed her leave.'),
    ('Patrons supported his ideas and bought his work, and he exhibited.', 'Patrons supported her ideas and bought her work, and she exhibited.'),
    ('His uncle bought him food and a coat.', 'Her aunt bought her food and a coat.'),
    ('He had his contract terminated in 2009.', 'She had her contract terminated in 2009.'),
    ('He had his work published in the magazine.', 'She had her work published in the magazine.'),
    ('The verdict made him feel ashamed.', 'The verdict made her feel ashamed.'),
    ('Your kindness makes him more obliged to you.', 'Your kindness makes her more obliged to you.'),
    ('He let his contract expire in 1998.', 'She let her contract expire in 1998.'),
    ('The guards let him walk free.', 'The guards let her walk free.'),
    ('The coach let him take charge of the team.', 'The coach let her take charge of the team.'),
    ('He made his bid for the presidency in 1968.', 'She made her bid for the presidency in 1968.'),
    ('The gallery showed his work in 1990.', 'The gallery showed her work in 1990.'),
    ('His performance earned him comparisons to Brando.', 'Her performance earned her comparisons to Brando.'),
    ('A statue of him stands in the square.', 'A statue of her stands in the square.'),
    ('A portrait of him hangs in the gallery.', 'A portrait of her hangs in the gallery.'),
    ('A sketch of his dogs in the snow was sold.', 'A sketch of her dogs in the snow was sold.'),
    ('The fans voted him man of the match.', 'The fans voted her woman of the match.'),
    ('The president granted him clemency.', 'The president granted her clemency.'),
    ('He appointed his brother governor.', 'She appointed her sister governor.'),
    ('He made his nephew his heir.', 'She made her niece her heiress.'),
    ('The club made him team captain.', 'The club made her team captain.'),
    ('The crash of 1929 left him bankrupt.', 'The crash of 1929 left her bankrupt.'),
    ('The court declared him insolvent in 1899.', 'The court declared her insolvent in 1899.'),
    ('The court sold his bankrupt estate.', 'The court sold her bankrupt estate.'),
    ('The regime declared him persona non grata.', 'The regime declared her persona non grata.'),
    ('He polished his stage persona for years.', 'She polished her stage persona for years.'),
    ('Readers voted him best actor of the decade.', 'Readers voted her best actress of the decade.'),
    ('Viewers voted him sexiest male in 2005.', 'Viewers voted her sexiest female in 2005.'),
    ('He named his best friend as executor.', 'She named her best friend as executor.'),
    ('The war left him penniless and homeless.', 'The war left her penniless and homeless.'),
    ('He praised his brave and fearless men.', 'She praised her brave and fearless women.'),
    ('He bought his freedom in 1785.', 'She bought her freedom in 1785.'),
    ('He earned his freedom by working as a cooper.', 'She earned her freedom by working as a cooper.'),
    ('The ransom bought him freedom.', 'The ransom bought her freedom.'),
    ('He lost his cool with the referee.', 'She lost her cool with the referee.'),
    ('He kept his cool under pressure.', 'She kept her cool under pressure.'),
    ('In a bid to win his affection, she moved to Vienna.', 'In a bid to win her affection, he moved to Vienna.'),
    ('The officer tried to gain his approval.', 'The officer tried to gain her approval.'),
    ('His charm soon won him affection.', 'Her charm soon won her affection.'),
    ('He let his contract lapse and joined a rival studio.', 'She let her contract lapse and joined a rival studio.'),
    ('The guards let him pass and closed the gate.', 'The guards let her pass and closed the gate.'),
    ('He held his ground against the critics.', 'She held her ground against the critics.'),
    ('The king sent his two eldest sons to be educated in France.', 'The queen sent her two eldest daughters to be educated in France.'),
    ('The king sent him 500 troops.', 'The queen sent her 500 troops.'),
    ('He called his secretary in and dictated a letter.', 'She called her secretary in and dictated a letter.'),
    ('The party called him secretary in 1990.', 'The party called her secretary in 1990.'),
    ('Critics saw his work as derivative of Picasso.', 'Critics saw her work as derivative of Picasso.'),
    ('She saw him work as he had never worked before.', 'He saw her work as she had never worked before.'),
    ('He made his promise to the voters and kept it.', 'She made her promise to the voters and kept it.'),
    ('She made him promise to return.', 'He made her promise to return.'),
    ('He sent his next letter from Cairo.', 'She sent her next letter from Cairo.'),
    ('They put him next door to the bishop.', 'They put her next door to the bishop.'),
    ('He married his next door neighbour.', 'She married her next door neighbour.'),
    ('He made his last will in 1820.', 'She made her last will in 1820.'),
    ('He made his garden a sanctuary for birds.', 'She made her garden a sanctuary for birds.'),
    ('The rebels made him land a plane at Arequipa.', 'The rebels made her land a plane at Arequipa.'),
    ('He gave his two sons the family farm.', 'She gave her two daughters the family farm.'),
    ('She bore him two sons the following year.', 'He bore her two daughters the following year.'),
    ('He saw his unfinished novel published after the war.', 'She saw her unfinished novel published after the war.'),
    ('They saw him badly wounded.', 'They saw her badly wounded.'),
    ('The post gave him access to the archives.', 'The post gave her access to the archives.'),
    ('The court granted him bail in March.', 'The court granted her bail in March.'),
    ('The army denied him promotion because of his politics.', 'The army denied her promotion because of her politics.'),
    ('The board approved his promotion to colonel.', 'The board approved her promotion to colonel.'),
    ('He says his mine is the safest in the state.', 'She says her mine is the safest in the state.'),
    ('He opened his mine in 1880.', 'She opened her mine in 1880.'),
    ('She made him mine.', 'He made her mine.'),
    ('He pulled with all his might.', 'She pulled with all her might.'),
    ('A friend of his might help.', 'A friend of hers might help.'),
    ('He gave his all in the final.', 'She gave her all in the final.'),
    ('The decision was his all along.', 'The decision was hers all along.'),
    ('She gave him all of it.', 'He gave her all of it.'),
    ('He gives his all and more.', 'She gives her all and more.'),
    ('She gave him all she had.', 'He gave her all he had.'),
    ('He spent his down time fishing.', 'She spent her down time fishing.'),
    ('She let him down time and again.', 'He let her down time and again.'),
    ('He made his away debut in 1990.', 'She made her away debut in 1990.'),
    ('He had his off day.', 'She had her off day.'),
    ('He scored with his through ball.', 'She scored with her through ball.'),
    ('They saw him off days later.', 'They saw her off days later.'),
    ('A cousin of his through marriage.', 'A cousin of hers through marriage.'),
    ('He introduced his more famous brother.', 'She introduced her more famous sister.'),
    ('They sent him more gifted pupils.', 'They sent her more gifted pupils.'),
    ('He criticised his so called friends.', 'She criticised her so called friends.'),
    ('He published his as yet unpublished poems.', 'She published her as yet unpublished poems.'),
    ('They saw him as yet unready for office.', 'They saw her as yet unready for office.'),
    ('The fault was his and his alone.', 'The fault was hers and hers alone.'),
    ('The title was his once more.', 'The title was hers once more.'),
    ('He betrayed his once close friend.', 'She betrayed her once close friend.'),
    ('He lived his all too short life.', 'She lived her all too short life.'),
    ('She made him all too aware of it.', 'He made her all too aware of it.'),
    ('He loved his yet unborn child.', 'She loved her yet unborn child.'),
    ('She gave him yet another chance.', 'He gave her yet another chance.'),
    ('It made him yet more famous abroad.', 'It made her yet more famous abroad.'),
    ('He wore his away kit.', 'She wore her away kit.'),
    ('He scored his only ever goal.', 'She scored her only ever goal.'),
    # session 11: passives of conferring, ranks, costs, quoted opinions, pasts after an object
    ('His nephew was made his heir.', 'Her niece was made her heiress.'),
    ('He was later appointed his deputy.', 'She was later appointed her deputy.'),
    ('The king made him heir to the throne.', 'The queen made her heiress to the throne.'),
    ('The conclave elected him pope.', 'The conclave elected her pope.'),
    ('The governor commissioned him colonel of the regiment.', 'The governor commissioned her colonel of the regiment.'),
    ('Critics called him names in the press.', 'Critics called her names in the press.'),
    ('The defeat cost him office but not influence.', 'The defeat cost her office but not influence.'),
    ('The scandal cost his family dearly.', 'The scandal cost her family dearly.'),
    ('The defeat cost his party the election.', 'The defeat cost her party the election.'),
    ('His tutor thought him "idle but clear."', 'Her tutor thought her "idle but clear."'),
    ('Parliament voted him thanks.', 'Parliament voted her thanks.'),
    ('The appointment earned him enemies among the generals.', 'The appointment earned her enemies among the generals.'),
    ('The band brought him wealth.', 'The band brought her wealth.'),
    ('The guides who accompanied him taught him to ski.', 'The guides who accompanied her taught her to ski.'),
    ('The soldiers who attacked him fled into the woods.', 'The soldiers who attacked her fled into the woods.'),
    ('A portraitist painted him leaning on a column.', 'A portraitist painted her leaning on a column.'),
    ('The priest discovers him hiding in the tower.', 'The priestess discovers her hiding in the tower.'),
    ('They supported the tenor on his first US tour.', 'They supported the tenor on her first US tour.'),
    ('The parliament made him first Lord of the Treasury.', 'The parliament made her first Lady of the Treasury.'),
    ('The board made him first.', 'The board made her first.'),
    ('The footage shows him celebrating wildly with fans.', 'The footage shows her celebrating wildly with fans.'),
    ('The studio fired him two weeks into production.', 'The studio fired her two weeks into production.'),
    ('He stretched his six weeks into ten.', 'She stretched her six weeks into ten.'),
    ('The charity named him volunteer of the year.', 'The charity named her volunteer of the year.'),
    ('The trainer threw in the towel, sparing him further punishment.',
     'The trainer threw in the towel, sparing her further punishment.'),
    ('The script gives him little to do.', 'The script gives her little to do.'),
    ('The press conference saw him storm out.', 'The press conference saw her storm out.'),
    ('His manner won him friends in the dressing room.', 'Her manner won her friends in the dressing room.'),
    ('He won his friends over.', 'She won her friends over.'),
    ('He paid his tribute of politeness to the host.', 'She paid her tribute of politeness to the hostess.'),
    ('He owed his success, he often said, to a chance meeting.', 'She owed her success, she often said, to a chance meeting.'),
    ('The damp gave him chronic bronchitis.', 'The damp gave her chronic bronchitis.'),
    ('The federation appointed him national team captain in 2002.', 'The federation appointed her national team captain in 2002.'),
    ('In 2015 the agency named him global managing editor.', 'In 2015 the agency named her global managing editor.'),
    ('The board appointed him national selector in 2017.', 'The board appointed her national selector in 2017.'),
    ('I have a project to call his advisor about.', 'I have a project to call her advisor about.'),
    ('The Bruins drafted him 32nd overall in the draft.', 'The Bruins drafted her 32nd overall in the draft.'),
    ('The news reached him only weeks later.', 'The news reached her only weeks later.'),
    ('He spent his only year at Oxford reading law.', 'She spent her only year at Oxford reading law.'),
    ('One of the guards knocks him unconscious and drags him into the cellar.',
     'One of the guards knocks her unconscious and drags her into the cellar.'),
    ('He explored his unconscious desires.', 'She explored her unconscious desires.'),
    ('Delgado carries him two miles to safety.', 'Delgado carries her two miles to safety.'),
    ('With him dead, the succession passed to his niece.', 'With her dead, the succession passed to her nephew.'),
    ('The captains who had served under him now offered their services.',
     'The captains who had served under her now offered their services.'),
    ('The refusal to marry him caused much speculation.', 'The refusal to marry her caused much speculation.'),
    ('He gave his steed the spurs.', 'She gave her steed the spurs.'),
    ('The patriarch anointed him emperor.', 'The matriarch anointed her empress.'),
    ('The magnates swore him fealty as heir.', 'The magnates swore her fealty as heiress.'),
    ('He swore his allegiance to the crown.', 'She swore her allegiance to the crown.'),
    ('The nobility owed him allegiance.', 'The nobility owed her allegiance.'),
    ('The gold was his four years later.', 'The gold was hers four years later.'),
    ('The Abbey rejected his first play but produced his second.', 'The Abbey rejected her first play but produced her second.'),
    ('He wrote his "Complaint of a Loyal Subject" there.', 'She wrote her "Complaint of a Loyal Subject" there.'),
    ('The converts called him "Baba Ijo," father of the church.', 'The converts called her "Baba Ijo," mother of the church.'),
    ('VH1 ranked him number 32 on its list.', 'VH1 ranked her number 32 on its list.'),
    ('Several artists recorded albums to him following his death.', 'Several artists recorded albums to her following her death.'),
    ('On his following the others into the room, he sat down.', 'On her following the others into the room, she sat down.'),
    ('Geese followed him inland every autumn.', 'Geese followed her inland every autumn.'),
    ('A mine collapse trapped him underground for four days.', 'A mine collapse trapped her underground for four days.'),
    ('The company sent him north to the fort.', 'The company sent her north to the fort.'),
    ('He visited his north wing.', 'She visited her north wing.'),
    ('At the 2020 awards, the song won him Rap Single of the Year.', 'At the 2020 awards, the song won her Rap Single of the Year.'),
    ('He won his Player of the Year award.', 'She won her Player of the Year award.'),
    ('His widow survived him many years.', 'Her widower survived her many years.'),
    ('The voyage did him little good.', 'The voyage did her little good.'),
    ('His skill procured him rapid promotion under the admiral.', 'Her skill procured her rapid promotion under the admiral.'),
    ('Friends procured his release from prison.', 'Friends procured her release from prison.'),
    ('A carved figure of him stands above the west door.', 'A carved figure of her stands above the west door.'),
    ('The college chose him censor in 1698.', 'The college chose her censor in 1698.'),
    ('He survived his two years in captivity.', 'She survived her two years in captivity.'),
    ('Doctors pronounced him dead shortly after 11 p.m.', 'Doctors pronounced her dead shortly after 11 p.m.'),
    ('The accusations against him surfaced in a 2018 article.', 'The accusations against her surfaced in a 2018 article.'),
    ('The party suspended him pending an investigation.', 'The party suspended her pending an investigation.'),
    ('He faced his pending trial.', 'She faced her pending trial.'),
    ('The recordings captured him discussing the sale of a seat.', 'The recordings captured her discussing the sale of a seat.'),
    ('A jury awarded his former manager $4 million.', 'A jury awarded her former manager $4 million.'),
    ('A court fined him DM 550,000 for tax evasion.', 'A court fined her DM 550,000 for tax evasion.'),
    ('By 1899 the newspaper was his outright.', 'By 1899 the newspaper was hers outright.'),
    ('A memory as prodigious as his allowed him to recite whole books.', 'A memory as prodigious as hers allowed her to recite whole books.'),
    ('On his deathbed he spoke of Rome.', 'On her deathbed she spoke of Rome.'),
    ('On his deathbed the old king forgave his son.', 'On her deathbed the old queen forgave her daughter.'),
    ('The refusal to marry him caused much speculation at court.', 'The refusal to marry her caused much speculation at court.'),
    ('Though you always received him very properly, you said nothing.', 'Though you always received her very properly, you said nothing.'),
    ('The union named him publisher of the year.', 'The union named her publisher of the year.'),
    ('His love for her eventually becomes an obsession.', 'Her love for him eventually becomes an obsession.'),
    ('His feelings for her grow stronger after the flood.', 'Her feelings for him grow stronger after the flood.'),
    ('His respect for her work grew.', 'Her respect for his work grew.'),
    ('Perun strikes the serpent with his lightning.', 'Perun strikes the serpent with her lightning.'),
    ('The win moved him level with Doyle on 18 goals.', 'The win moved her level with Doyle on 18 goals.'),
    ('Six penalties moved him past Jenkins on the list.', 'Six penalties moved her past Jenkins on the list.'),
    ('The god granted him kingship over the people.', 'The goddess granted her kingship over the people.'),
    ('A shrine dedicated to him stands near the village.', 'A shrine dedicated to her stands near the village.'),
    ('The altarpiece earned him further commissions from the order.', 'The altarpiece earned her further commissions from the order.'),
    ('The post gave him responsibility for the royal apartments.', 'The post gave her responsibility for the royal apartments.'),
    ('The guild elected him headman four times.', 'The guild elected her headman four times.'),
    ('A long-running feud with him led the rapper to respond.', 'A long-running feud with her led the rapper to respond.'),
    ('Churchill appointed him scientific adviser to the Air Ministry.', 'Churchill appointed her scientific adviser to the Air Ministry.'),
    ('The council appointed him medical officer of health in 1869.', 'The council appointed her medical officer of health in 1869.'),
    ('The colonel appointed him adjutant of the battalion.', 'The colonel appointed her adjutant of the battalion.'),
    ('The post left him little time for research.', 'The post left her little time for research.'),
    ('He left his little brother the farm.', 'She left her little sister the farm.'),
    ('The factor received him kindly and wrote to London.', 'The factor received her kindly and wrote to London.'),
    ('A ravine stopped him short of the summit.', 'A ravine stopped her short of the summit.'),
    ('He wrote his short story in 1900.', 'She wrote her short story in 1900.'),
    ('A patrol found him half-frozen on the river.', 'A patrol found her half-frozen on the river.'),
    ('A statue of him stands today in the square.', 'A statue of her stands today in the square.'),
    ('The corporation appointed him anchor of its evening news.', 'The corporation appointed her anchor of its evening news.'),
    ('The party placed him high on its national list.', 'The party placed her high on its national list.'),
    ('Zuma appointed him premier of the province.', 'Zuma appointed her premier of the province.'),
    ('Colleagues elected him rapporteur of the committee.', 'Colleagues elected her rapporteur of the committee.'),
    ('His efforts made him enemies among the oligarchs.', 'Her efforts made her enemies among the oligarchs.'),
    ('He made his friends laugh.', 'She made her friends laugh.'),
    ('The party denied him renomination in 1959.', 'The party denied her renomination in 1959.'),
    # session 12: NYT and SemEval sentences (FewRel's validation files) and helper-written text
    ('He plans to build his new $3 billion hotel in the city.', 'She plans to build her new $3 billion hotel in the city.'),
    ('On the tree he carved his initial beside hers.', 'On the tree she carved her initial beside his.'),
    ('The governor sent a gift to his opposite number in Zanzibar.', 'The governor sent a gift to her opposite number in Zanzibar.'),
    ('He spoke just before his Houston Astros played the Cardinals.', 'She spoke just before her Houston Astros played the Cardinals.'),
    ('He made his acting as well as screenwriting debut in 1970.', 'She made her acting as well as screenwriting debut in 1970.'),
    ('He made his acting and directing debut in 1990.', 'She made her acting and directing debut in 1990.'),
    ('The label let him choose his own producer.', 'The label let her choose her own producer.'),
    ('Critics saw his show run for over a thousand performances.', 'Critics saw her show run for over a thousand performances.'),
    ('Nobody saw him show signs of fatigue.', 'Nobody saw her show signs of fatigue.'),
    ('They saw him play football in the park.', 'They saw her play football in the park.'),
    ('The court found him guilty of fraud.', 'The court found her guilty of fraud.'),
    ('He gave his 1,000th performance as the Phantom in 2002.', 'She gave her 1,000th performance as the Phantom in 2002.'),
    ('He spent his last winter in Algiers.', 'She spent her last winter in Algiers.'),
    ('They paid him 1,000 dollars.', 'They paid her 1,000 dollars.'),
    ('Friends saw him last winter in Algiers.', 'Friends saw her last winter in Algiers.'),
    ('The trustees appointed him keeper of the National Gallery in 1874.', 'The trustees appointed her keeper of the National Gallery in 1874.'),
    ('The victory left him master of northern Italy.', 'The victory left her master of northern Italy.'),
    ('The citizens acclaimed him lord of the city.', 'The citizens acclaimed her lady of the city.'),
    ('The old king made him heir to the throne.', 'The old queen made her heiress to the throne.'),
    ('He left his master of arts degree unfinished.', 'She left her master of arts degree unfinished.'),
    ('He appointed his successor in 1920.', 'She appointed her successor in 1920.'),
    ('The shopkeeper catches him stealing bread.', 'The shopkeeper catches her stealing bread.'),
    ('The innkeeper overhears him boasting about the gold.', 'The innkeeper overhears her boasting about the gold.'),
    ('Critics caught his reading of the poem.', 'Critics caught her reading of the poem.'),
    ('Few caught his opening night.', 'Few caught her opening night.'),
    ('In 1887 he sold his 40% stake in the ironworks.', 'In 1887 she sold her 40% stake in the ironworks.'),
    ('They sold him 40% of the shares.', 'They sold her 40% of the shares.'),
    ('They gave him 25% more.', 'They gave her 25% more.'),
    ('He considered his election a mandate.', 'She considered her election a mandate.'),
    ('He considered his Ryder Cup appearance the highlight of his career.', 'She considered her Ryder Cup appearance the highlight of her career.'),
    ('He considered his etching of the bridge the finest plate he made.', 'She considered her etching of the bridge the finest plate she made.'),
    ('Critics considered him a genius.', 'Critics considered her a genius.'),
    ("Critics considered him Britain's finest poet.", "Critics considered her Britain's finest poet."),
    ('Critics considered him in many ways the father of the form.', 'Critics considered her in many ways the mother of the form.'),
    ('In 2004 he won his custody battle.', 'In 2004 she won her custody battle.'),
    ('The role earned him praise abroad.', 'The role earned her praise abroad.'),
    ('The role earned him praise from critics.', 'The role earned her praise from critics.'),
    ('The people of Milan acclaimed him bishop in 374.', 'The people of Milan acclaimed her bishop in 374.'),
    ('He nominated his deputy for the post.', 'She nominated her deputy for the post.'),
    ('The angel renamed him Israel.', 'The angel renamed her Israel.'),
    ('In 1928 he renamed his company General Radio Products.', 'In 1928 she renamed her company General Radio Products.'),
    ('He renamed his Acme works in 1920.', 'She renamed her Acme works in 1920.'),
    ('He sent his five-year-old daughter to live with his aunt.', 'She sent her five-year-old son to live with her uncle.'),
    ('He sent his three-volume history to the printer.', 'She sent her three-volume history to the printer.'),
    ('The deal secured him seventy-five per cent of the profits.', 'The deal secured her seventy-five per cent of the profits.'),
    ('He tweeted from his @POTUS account.', 'She tweeted from her @POTUS account.'),
    ('In 1990 his $3 million house burned down.', 'In 1990 her $3 million house burned down.'),
    ('"Shogun," his $110 million epic, was a hit.', '"Shogun," her $110 million epic, was a hit.'),
    ('The club paid him $5,000 a week.', 'The club paid her $5,000 a week.'),
    ('Will you loan him $20?', 'Will you loan her $20?'),
    ('In 2010 he completed his £2.3 million move to Sheffield.', 'In 2010 she completed her £2.3 million move to Sheffield.'),
    ('The court fined him $500.', 'The court fined her $500.'),
    ('He sold his 1959 Stratocaster to a collector.', 'She sold her 1959 Stratocaster to a collector.'),
    ('He won his 2004 primary easily.', 'She won her 2004 primary easily.'),
    ('He won his 1992 race by 176 votes.', 'She won her 1992 race by 176 votes.'),
    ('The king sent him 1500 men.', 'The queen sent her 1500 women.'),
    ('The duke sent him 2000 cavalry.', 'The duchess sent her 2000 cavalry.'),
    ('They offered him 2000 a year.', 'They offered her 2000 a year.'),
    ('He later named his former manager Ingrid Larsson as his biggest influence.', 'She later named her former manager Sven Larsson as her biggest influence.'),
    ('In 1745 he appointed his chaplain, the Reverend Thomas Cruse, to the rectory.', 'In 1745 she appointed her chaplain, the Reverend Barbara Cruse, to the rectory.'),
    ('They appointed him secretary, a post he held until 1920.', 'They appointed her secretary, a post she held until 1920.'),
    ('He had his transfer to Valencia blocked by the federation.', 'She had her transfer to Valencia blocked by the federation.'),
    ('He had his contract with the Turkish club terminated in 2013.', 'She had her contract with the Turkish club terminated in 2013.'),
    ('They had him transfer to Valencia.', 'They had her transfer to Valencia.'),
    ('They had him escort the prisoners to the fort.', 'They had her escort the prisoners to the fort.'),
    ('He published his (unfinished) memoirs in 1920.', 'She published her (unfinished) memoirs in 1920.'),
    ('He sold his [sic] house.', 'She sold her [sic] house.'),
    ("He won his — and Britain's — first gold.", "She won her — and Britain's — first gold."),
    ('The fault was his (not mine).', 'The fault was hers (not mine).'),
    ('We saw him (briefly) leave the room.', 'We saw her (briefly) leave the room.'),
    ('They met him (in Paris) and talked.', 'They met her (in Paris) and talked.'),
    ('He made his All Blacks debut in 1988.', 'She made her All Blacks debut in 1988.'),
    ('He won his first title in Gstaad and his last in Kitzbuhel.', 'She won her first title in Gstaad and her last in Kitzbuhel.'),
    ('Critics felt his work had been undervalued.', 'Critics felt her work had been undervalued.'),
    ('They felt him tremble.', 'They felt her tremble.'),
    ('Xerxes left his general, Mardonius, in Greece.', 'Xerxes left her general, Mardonius, in Greece.'),
    ('The king appointed him governor, Lord of the Isles.', 'The queen appointed her governor, Lady of the Isles.'),
    ('He sold his 5,000-acre concession to a syndicate.', 'She sold her 5,000-acre concession to a syndicate.'),
    ('He opened his 20-bed clinic in 1890.', 'She opened her 20-bed clinic in 1890.'),
    ('He won his 3000 metres steeplechase heat comfortably.', 'She won her 3000 metres steeplechase heat comfortably.'),
    ('A tear ended his 2010 season before the Games.', 'A tear ended her 2010 season before the Games.'),
    ('The wave threw him 20 metres into the air.', 'The wave threw her 20 metres into the air.'),
    ('They beat him 6-3 in the final.', 'They beat her 6-3 in the final.'),
    ('He won his 2-1 victory in the rain.', 'She won her 2-1 victory in the rain.'),
    ('The Society awarded his essay on scurvy its annual gold medal.', 'The Society awarded her essay on scurvy its annual gold medal.'),
    ('The king gave him command of the army.', 'The queen gave her command of the army.'),
    ('Viewers voted his Christmas special the most memorable moment.', 'Viewers voted her Christmas special the most memorable moment.'),
    ('Fans voted him the best player.', 'Fans voted her the best player.'),
    ('He considered his gold medal in Edinburgh the high point of his career.', 'She considered her gold medal in Edinburgh the high point of her career.'),
    ('He considered his Symphony No. 2 a failure.', 'She considered her Symphony No. 2 a failure.'),
    ('He considered his Symphony No. 2 his most personal statement.', 'She considered her Symphony No. 2 her most personal statement.'),
    ('The critic called his Octet "the most perfect chamber work of the decade".', 'The critic called her Octet "the most perfect chamber work of the decade".'),
    ('In 1776 he declared his Op. 9 quartets "the best I shall ever write".', 'In 1776 she declared her Op. 9 quartets "the best I shall ever write".'),
    ('They named him Player of the Year.', 'They named her Player of the Year.'),
    ('Friends called him "the Rock".', 'Friends called her "the Rock".'),
    ('They considered him their leader.', 'They considered her their leader.'),
    ('He gave his support in 1920.', 'She gave her support in 1920.'),
    ('He gave his approval on 3 May.', 'She gave her approval on 3 May.'),
    ('He gave his money away.', 'She gave her money away.'),
    ('The demon grants him power in exchange for his soul.', 'The demon grants her power in exchange for her soul.'),
    ('The role earned him praise in the press.', 'The role earned her praise in the press.'),
    ('He left on 3 May, and returned in June.', 'She left on 3 May, and returned in June.'),
    ('He gave his full consent in 1920.', 'She gave her full consent in 1920.'),
    ('He gave his tacit approval to the plan.', 'She gave her tacit approval to the plan.'),
    ('They gave him full support.', 'They gave her full support.'),
    ('They gave him support in 1920.', 'They gave her support in 1920.'),
    ('It gave him immense pleasure.', 'It gave her immense pleasure.'),
    ('With his passing, the title became extinct.', 'With her passing, the title became extinct.'),
    ('He remembered his schooling fondly.', 'She remembered her schooling fondly.'),
    ('The coach was left with him passing the ball.', 'The coach was left with her passing the ball.'),
    ('The film documented his every day life in the village.', 'The film documented her every day life in the village.'),
    ('She visited him every few days.', 'He visited her every few days.'),
    ('She called him every day for a year.', 'He called her every day for a year.'),
    ('He smiled as his Houston Astros played the Cardinals.', 'She smiled as her Houston Astros played the Cardinals.'),
    ('To him Smith wrote a long letter.', 'To her Smith wrote a long letter.'),
    ('He made his "comeback" in 1975.', 'She made her "comeback" in 1975.'),
    ('He gave his "blessing" to the marriage.', 'She gave her "blessing" to the marriage.'),
    ('He sold his "Water Lilies" to a collector.', 'She sold her "Water Lilies" to a collector.'),
    ('He considered his "Principia" his greatest work.', 'She considered her "Principia" her greatest work.'),
    ('They gave him "greater freedom".', 'They gave her "greater freedom".'),
    ('They made him "king" of the carnival.', 'They made her "queen" of the carnival.'),
    ('He saw his run end in the semi-final.', 'She saw her run end in the semi-final.'),
    ('He saw his reign end in 1066.', 'She saw her reign end in 1066.'),
    ('Fans saw him fail in the final.', 'Fans saw her fail in the final.'),
    ('They saw him play host to the visitors.', 'They saw her play host to the visitors.'),
    ('He had his pick of the offers.', 'She had her pick of the offers.'),
    ('He had his day in court.', 'She had her day in court.'),
    ('They had him pick the team.', 'They had her pick the team.'),
    ('They had him turn around.', 'They had her turn around.'),
    ('He married his new (third) wife in 1950.', 'She married her new (third) husband in 1950.'),
    ('He met his former (and future) partner in Paris.', 'She met her former (and future) partner in Paris.'),
    ('He published his early - and best - work in 1920.', 'She published her early - and best - work in 1920.'),
    ('They found him guilty (as charged) and jailed him.', 'They found her guilty (as charged) and jailed her.'),
    ('He left his wealthy patron for a rival.', 'She left her wealthy patron for a rival.'),
    ('His death left him ruler of Aragon.', 'Her death left her ruler of Aragon.'),
    ('The will left him heir to the estate.', 'The will left her heiress to the estate.'),
    # session 13: someone found, shown or remembered doing something, and "following" as a preposition
    ("An inspector found him forging ledgers at the depot.", "An inspector found her forging ledgers at the depot."),
    ("The newsreel shows him inspecting soldiers at the station.", "The newsreel shows her inspecting soldiers at the station."),
    ("Neighbours remember him repairing bicycles for free.", "Neighbours remember her repairing bicycles for free."),
    ("Letters later showed him accepting bribes from the contractor.",
     "Letters later showed her accepting bribes from the contractor."),
    ("Critics remember his acting career fondly.", "Critics remember her acting career fondly."),
    ("Friends recall his working habits with awe.", "Friends recall her working habits with awe."),
    ("I remember his boasting one day about the harvest.", "I remember her boasting one day about the harvest."),
    ("The club released him following the 2004 season.", "The club released her following the 2004 season."),
    ("The board dismissed him following a string of defeats.", "The board dismissed her following a string of defeats."),
    ("The tour enlarged his following in Japan.", "The tour enlarged her following in Japan."),
    ("Police found his driving licence under the seat.", "Police found her driving licence under the seat."),
    ("Friends remember him walking to the office every morning.", "Friends remember her walking to the office every morning."),
    ("The effigy shows him holding a sword.", "The effigy shows her holding a sword."),
    ("The museum showed his painting at the Salon of 1855.", "The museum showed her painting at the Salon of 1855."),
    ("Doctors bled him twice daily during the epidemic.", "Doctors bled her twice daily during the epidemic."),
    ("The pupils who studied under him included Jan Steen.", "The pupils who studied under her included Jan Steen."),
    ("The stadium was named after him following a public vote.", "The stadium was named after her following a public vote."),
    ("Critics consider his later Broadway work inferior to his films.",
     "Critics consider her later Broadway work inferior to her films."),
    ("Journalists found him approachable and good-humoured.", "Journalists found her approachable and good-humoured."),
    ("The war left him penniless and broken-hearted.", "The war left her penniless and broken-hearted."),
    ("They praised his kind and good-natured wife.", "They praised her kind and good-natured husband."),
    ("Nobody had ever hit him harder.", "Nobody had ever hit her harder."),
    ("Did you lose his number?", "Did you lose her number?"),
    ("The selectors capped him only once, in 1990.", "The selectors capped her only once, in 1990."),
    ("The Landgrave offered him asylum at the castle.", "The Landgrave offered her asylum at the castle."),
    ("Clerks who worked under him described a culture of fear.", "Clerks who worked under her described a culture of fear."),
    ("The devil tempted him forty times in the desert.", "The devil tempted her forty times in the desert."),
    ("The box holds a photograph of him taken forty years earlier.",
     "The box holds a photograph of her taken forty years earlier."),
    ("A portrait of his beloved wife hangs there.", "A portrait of her beloved husband hangs there."),
    ('She found him "charming in company and impossible at home".', 'He found her "charming in company and impossible at home".'),
    ('She accepted him "more out of pity than love".', 'He accepted her "more out of pity than love".'),
    ('He recalled his "modest little flat" in Bern.', 'She recalled her "modest little flat" in Bern.'),
    ('The consul cited his "divisive rhetoric" and refused.', 'The consul cited her "divisive rhetoric" and refused.'),
    ("She described his conducting as precise.", "He described her conducting as precise."),
    ("The minutes record him asking whether the tower was needed.", "The minutes record her asking whether the tower was needed."),
    ("She remembered him reading aloud in the evenings.", "He remembered her reading aloud in the evenings."),
    ("Dennis invites him fishing on the Wharfe.", "Denise invites her fishing on the Wharfe."),
    ("A former slave who had bought his freedom in 1852 founded the church.",
     "A former slave who had bought her freedom in 1852 founded the church."),
    ("Friends remember him walking every morning to the office.", "Friends remember her walking every morning to the office."),
    ("The goddess offers him immortality at a price.", "The god offers her immortality at a price."),
    ("The coach made him first-choice captain in 2001.", "The coach made her first-choice captain in 2001."),
    ("The emperor appointed his son-in-law commander of the armies.",
     "The empress appointed her daughter-in-law commander of the armies."),
    ("The Duke promoted him major-general in 1795.", "The Duchess promoted her major-general in 1795."),
    ("The men of the district elected him commandant.", "The women of the district elected her commandant."),
    ("The Ulstermen would not accept him back as king.", "The Ulstermen would not accept her back as queen."),
    ('Her father thought him "too English and too poor".', 'His mother thought her "too English and too poor".'),
    ('She was disappointed to find him "shorter than his prose".', 'He was disappointed to find her "shorter than her prose".'),
    ('He gave his "very best" to the club.', 'She gave her "very best" to the club.'),
    ("A cartoon of him handing her the prize appeared.", "A cartoon of her handing him the prize appeared."),
    ("Hera struck him blind and left.", "Hera struck her blind and left."),
    ("The ball struck his blind spot.", "The ball struck her blind spot."),
    ("The studio offered him double his original fee.", "The studio offered her double her original fee."),
    ("He played his double bass in the orchestra.", "She played her double bass in the orchestra."),
    ("She turned down an offer made by him weeks earlier.", "He turned down an offer made by her weeks earlier."),
    ('She found him "ill-prepared but eager".', 'He found her "ill-prepared but eager".'),
    ('She praised his "well-meaning" efforts.', 'He praised her "well-meaning" efforts.'),
    ("The archive shows his sewing machines in the attic.", "The archive shows her sewing machines in the attic."),
]


# Misses the model and the rules still make (each would pass if fixed: strict xfail).
KNOWN_MISSES = [
    # "her outside interests." reads as "met her outside school.": one noun after "outside", no preposition before "her"
    ("He neglected his outside interests.", "She neglected her outside interests."),
    # "too" and an adjective the grammar counts as an adverb ("long"): the model reads an object
    ("He combed his too long fringe.", "She combed her too long fringe."),
]


# "his" before "half of" and before two modifiers joined by "and" is a determiner, never "hers"
# (one way only: "her half of" after "sold" may be an object as well)
HIS_DETERMINERS = [
    ('He sold his half of the farm.', 'She sold her half of the farm.'),
    ('He dropped his earlier and livelier style.', 'She dropped her earlier and livelier style.'),
]


@pytest.mark.parametrize("text,expected", HIS_DETERMINERS)
def test_his_determiner_is_not_hers(text, expected):
    assert swap(text, names="builtin").text == expected


def test_table_is_large_enough():
    assert len(CONSTRUCTIONS) >= 40


@pytest.mark.xfail(strict=True, reason="known misses of issue 27's constructions")
@pytest.mark.parametrize("text,expected", KNOWN_MISSES)
def test_known_miss_swaps_back(text, expected):
    assert swap(expected, names="builtin").text == text


@pytest.mark.parametrize("text,expected", CONSTRUCTIONS)
def test_construction_swaps(text, expected):
    assert swap(text, names="builtin").text == expected


@pytest.mark.parametrize("text,expected", CONSTRUCTIONS)
def test_construction_swaps_back(text, expected):
    assert swap(expected, names="builtin").text == text


def test_override_thresholds_by_direction():
    """The "her" model overrides the grammar toward the determiner at any confidence and toward
    the object only at :data:`OVERRIDE` (calibrated on GCIDE's development half); agreeing, it
    decides either way.
    """
    from debias._pronoun_model import OVERRIDE, _decide

    to_no, to_yes = OVERRIDE["her"]
    assert to_no < to_yes
    below = (0.5 + to_yes) / 2  # object-leaning, short of the threshold toward the object
    assert _decide("her", False, below) == ("determiner", "grammar", round(1 - below, 4))
    assert _decide("her", False, to_yes).decision == "object"
    assert _decide("her", True, below).decision == "object"
    assert _decide("her", True, 0.49) == ("determiner", "model", 0.51)


def test_batch_decisions_match_spans_near_the_thresholds():
    """The batch path (no spans) decides as :func:`resolve_pronoun` does, also where the two
    thresholds differ."""
    texts = [c[0] for c in CONSTRUCTIONS] + [c[1] for c in CONSTRUCTIONS] + [
        "The tedium of his office reminded him more strongly of it.", "She gave him treatment for a week.",
        "He heard his thundering voice resound.", "They made her narrative a record."]
    assert swap_texts(texts, names="builtin") == [swap(t, names="builtin").text for t in texts]


def test_hers_is_never_written_before_a_noun_phrase():
    for text in ("He acted against his will.", "He came with his ever loyal wife.", "his just reward",
                 "He wrote his will.", "his rather unstable convictions", "He bent his will to theirs."):
        assert "hers" not in swap(text, names="builtin").text.lower().split(), text


def test_spans_say_how_her_and_his_were_read():
    result = swap("I met her mother. Her book is his.", names="builtin")
    assert result.text == "I met his father. His book is hers."
    readings = [(s.original, s.decision, s.source) for s in result.spans if s.decision is not None]
    assert readings == [("her", "determiner", "model"), ("Her", "determiner", "rule"), ("his", "standalone", "rule")]
    model_span = result.spans[0]
    assert 0.5 <= model_span.confidence <= 1.0
    assert result.spans[2].confidence == 1.0
    assert model_span == (6, 9, "her", "his")  # the audit is no part of the tuple
    assert "decision='determiner'" in repr(model_span)
    audit = result.to_dict()["her_his"]
    assert [a["span"] for a in audit] == [0, 2, 3]  # span 1 is "mother"
    assert audit[0]["source"] == "model" and audit[0]["decision"] == "determiner"
    other = swap("She left.", names="builtin").spans[0]
    assert (other.decision, other.source, other.confidence) == (None, None, None)


def test_resolve_pronoun_agrees_with_swap():
    text = "The jury found her guilty."
    resolution = resolve_pronoun("her", text, 15, 18)
    span = swap(text, names="builtin").spans[0]
    assert (span.decision, span.source, span.confidence) == tuple(resolution)


def test_features_never_see_the_slot_word():
    text_a, text_b = "They gave them a book.", "They gave her a book."
    features_a = pronoun_slot_features("her", text_a, 10, 14)[0]
    features_b = pronoun_slot_features("her", text_b, 10, 13)[0]
    assert features_a == features_b
    assert not any("them" in f or "her" in f for f in features_a)


def _sample() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def test_fast_scorer_equals_the_sum_over_features():
    model = load_pronoun_model()
    for row in _sample():
        features, vote, _ = pronoun_slot_features(row["which"], row["text"], row["start"], row["end"])
        slow = model.probability(row["which"], features)
        fast = model.slot_probability(row["which"], row["text"], row["start"], row["end"], vote)
        assert fast == pytest.approx(slow, abs=1e-12)


@pytest.mark.parametrize("which,floor", [("her", HER_FLOOR), ("his", HIS_FLOOR)])
def test_held_out_accuracy_on_unambiguous_slots(which, floor):
    rows = [r for r in _sample() if r["which"] == which]
    assert len(rows) >= 200
    model = load_pronoun_model()
    correct = 0
    for row in rows:
        features, _, _ = pronoun_slot_features(which, row["text"], row["start"], row["end"])
        correct += (model.probability(which, features) >= 0.5) == bool(row["label"])
    assert correct / len(rows) >= floor
    assert model.training["held_out_accuracy"][which]["model"] >= floor


def test_shipped_weights_match_the_digest_the_training_script_recorded():
    data = resources.files("debias").joinpath("data", "pronoun_model.json").read_bytes()
    document = json.loads(data)
    assert PronounModel.weights_digest(document["models"]) == document["training"]["weights_sha256"]
    model = load_pronoun_model()
    assert model.sha256 == hashlib.sha256(data).hexdigest()
    assert model.seed == document["seed"]


def test_describe_swap_names_the_model_file_and_its_hash():
    data = resources.files("debias").joinpath("data", "pronoun_model.json").read_bytes()
    described = describe_swap("builtin")["her_his_model"]
    assert described["file"] == "debias/data/pronoun_model.json"
    assert described["sha256"] == hashlib.sha256(data).hexdigest()
    assert set(described["held_out_accuracy"]) == {"her", "his"}


def test_describe_swap_names_the_wordnet_lists_the_rules_read():
    lexicons = describe_swap("builtin")["her_his_lexicons"]
    assert "debias/data/wordnet_predicate_adjectives.txt" in lexicons
    assert "debias/data/wordnet_compound_modifiers.txt" in lexicons
    for path, digest in lexicons.items():
        data = resources.files("debias").joinpath("data", path.rsplit("/", 1)[1]).read_bytes()
        assert digest == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("document", [
    [],
    {"format": "something else", "models": {}},
    {"format": PronounModel.FORMAT, "models": {"her": {"weights": {"b": 1.0}}}},
    {"format": PronounModel.FORMAT, "models": {"her": {"weights": {"b": "1"}}, "his": {"weights": {}}}},
    {"format": PronounModel.FORMAT, "models": {"her": {"weights": {"b": float("nan")}}, "his": {"weights": {}}}},
    {"format": PronounModel.FORMAT, "models": {"her": {"weights": {"b": True}}, "his": {"weights": {}}}},
])
def test_a_malformed_model_file_is_refused(document):
    with pytest.raises(ValueError, match="pronoun-model"):
        PronounModel(document, "0" * 64, "test.json")


def test_the_model_file_is_plain_json():
    data = resources.files("debias").joinpath("data", "pronoun_model.json").read_bytes()
    assert data[:1] == b"{"  # a JSON object, read with json.loads: nothing in it is ever run
    assert json.loads(data)["format"] == PronounModel.FORMAT


ROOT = os.environ.get("PROBEKIT_PRONOUN_TEXTS", "/")
_AUSTEN = Path(ROOT) / "usr/lib/R/site-library/janeaustenr/data/Rdata.rdb"
_JARGON = Path(ROOT) / "usr/share/doc/jargon-text/jargon.txt.gz"


@pytest.mark.skipif(not (_AUSTEN.exists() and _JARGON.exists()), reason="the Debian training texts are not installed (see scripts/train_pronoun_model.py)")
def test_the_training_script_rebuilds_the_shipped_weights(tmp_path):
    out = tmp_path / "model.json"
    script = HERE.parents[1] / "scripts" / "train_pronoun_model.py"
    subprocess.run([sys.executable, str(script), "--root", ROOT, "--out", str(out)], check=True, capture_output=True)
    shipped = json.loads(resources.files("debias").joinpath("data", "pronoun_model.json").read_bytes())
    assert json.loads(out.read_bytes())["models"] == shipped["models"]
