"""Word lists the offline extractor leans on: stopwords, cues, suffixes and domain keywords.

Small, hand-written English lists; they make the extractor's guesses, so they are kept in one place
where they can be read and tuned. ``infer_domains`` tags a text with the domains whose keywords it
uses. Imports only the standard library.
"""

from __future__ import annotations

import re
from collections import Counter


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _ordered(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Abbreviations whose full stop does not end a sentence.
# Titles before a person's name ("Dra." a doctor's in Spanish and Portuguese).
TITLES = _words("dr dra mr mrs ms miss prof")
ABBREVIATIONS = (TITLES - {"miss"}) | _words("st jr sr sra vs etc eg ie approx dept est fig mt ft")

MONTHS = _ordered(
    "january february march april may june july august september october november december"
)
SEASONS = _words("spring summer autumn fall winter")
WEEKDAYS = _ordered("monday tuesday wednesday thursday friday saturday sunday")

FUNCTION_WORDS = _words(
    """
    a an the and or but if then so because as of at by for with about against between into
    through during before after above below to from up down in out on off over under again
    further once here there when where why how all any both each few more most other some such
    no nor not only own same than too very can will just should now i me my mine myself we us
    our ours ourselves you your yours yourself yourselves he him his himself she her hers herself
    it its itself they them their theirs themselves what which who whom whose this that these
    those am is are was were be been being have has had having do does did doing would could
    might must shall may also even still yet ever never always often sometimes maybe perhaps
    really actually definitely totally pretty quite rather much many lot lots something anything
    nothing everything someone anyone everyone nobody somebody everybody while though although
    whether since until unless per via upon within without across along among around behind
    beside besides beyond toward towards onto like unlike near every another either neither
    one ones two three four five six seven eight nine ten first second third last next
    """
)

# Cries, greetings, thanks and chat's small words, in English and in the languages English
# chats switch to ("tudo bem, obrigada", "Ciao Marta", "abeg", "lang"): none names anyone (nor,
# a test checks, a town of the shipped lists).
INTERJECTIONS = _words(
    """
    yeah yes yep yup no nope oh ooh wow hey hi hello ok okay thanks thank please sure well um uh
    hmm haha hahaha lol omg yay aww awww ah aha wow whoa alright congrats congratulations bye
    goodbye cheers dear sorry welcome great good nice awesome amazing cool glad absolutely
    totally exactly indeed anyway anyways plus btw ugh oops phew woah woohoo oof agreed yikes
    ohh ahh hmmm huh meh whew geez ya yea wowza yess aw ok omw tbh imo ikr np thx ty ha hah heh
    wfh idk lmk brb ngl smh irl fyi asap pls plz hbu wyd tbf ffs lmao rofl xoxo ofc deffo
    gotcha dang damn darn gosh nah welp rip hiya heya howdy
    wah walao aiyo aiyoh aiyah alamak eish haibo yoh lah leh lor
    obrigada obrigado valeu tchau beijos beijo bjs saudades oi olá tudo nossa eita caramba
    gracias hola adiós adios chao besos jaja jajaja jajajaja órale orale ándale andale
    merci salut bisous bonne bonjour bonsoir coucou ouais oui voilà
    salamat naku sige ingat grabe talaga diba charot medaase danke tschüss grazie prego
    shukran inshallah wallah mashallah yalla dzięki dzieki cześć czesc yaar arre accha acha
    não nao sim non parabéns parabens félicitations felicidades felicitaciones enhorabuena
    dieu deus dios kkk kkkk kkkkk agora hoje amanhã né tbm
    ciao namaste sawubona howzit habari mambo jambo karibu poa sawa yebo haan nahi chalo theek
    abeg wahala oya sef jare ehn ehen biko dey craic
    naw och aye nae fae frae tae wi oot doon intae cannae dinnae wouldnae didnae lekker
    yung lang pala daw ako ikaw siya kami sila natin mga nga
    """
)

# What one calls someone by that the lists also know as given names ("so honey, I'm making
# jollof", "Ma, are you home?", "buddy, you coming?"): in a call's place, no one's name.
ENDEARMENTS = _words("honey buddy ma pa mama papa babe baby love man darling sweetie jaan")
#: Words that tell what comes next, before a farewell to a place ("and then bye bye Braamfontein").
NEXT_WORDS = _words("then and so now")

CONTRACTIONS = _words(
    """
    i'm i've i'll i'd you're you've you'll you'd he's she's it's we're we've we'll we'd they're
    they've they'll they'd that's there's what's who's let's don't doesn't didn't can't couldn't
    won't wouldn't shouldn't isn't aren't wasn't weren't haven't hasn't hadn't here's how's
    where's when's y'all gonna wanna gotta ain't that'll it'll there'll who'd it'd
    """
)

COMMON_VERBS = _words(
    """
    go goes going went gone get gets getting got gotten make makes making made know knows knew
    known knowing think thinks thinking thought take takes taking took taken see sees seeing saw
    seen come comes coming came want wants wanted wanting look looks looking looked use uses used
    using find finds found finding give gives gave given giving tell tells told telling feel
    feels felt try tries tried trying leave leaves left call calls called calling keep keeps kept
    keeping let lets begin began begun seem seems seemed help helps helped helping talk talks
    talked talking turn turned start starts started starting show shows showed shown hear heard
    hears run ran runs move moves moved like likes liked liking love loves loved loving live lives
    lived believe bring brings brought happen happens happened write wrote written sit sat stand
    stood lose lost pay paid meet met include continue set learn learned learnt change changed
    lead led understand understood watch watched follow followed stop stopped create created
    speak spoke spend spent grow grew grown open opened walk walked win won offer remember
    remembered consider appear buy bought wait waited send sent expect build built stay stayed
    fall fell cut reach remain suggest suggested raise pass passed sell sold require decide
    decided pull enjoy enjoys enjoyed hope hopes hoped hoping wish wished mean means meant say
    says said saying ask asks asked asking need needs needed guess bet check checked share
    shared sharing visit visited visiting plan plans planned miss missed finish finished put
    held hold carry catch caught drive drove eat ate eaten drink drank sleep slept wake woke teach
    taught fly flew join joined care cares mind matter matters agree deal handle manage managed
    relax inspire inspired inspiring motivate motivated appreciate appreciated admire imagine
    realize realized realise realised notice noticed explore explored discover discovered
    celebrate celebrated pick picked chat chatted update reckon sound sounds sounded keep
    remind reminds reminded read reads others standing sitting holding wearing
    greet greeted congratulate congratulated invite invited inviting hug hugged
    warn warned forgive forgave introduce introduced
    excited proud happy sad busy tired thrilled stoked grateful thankful lucky blessed
    """
)

COMMON_MODIFIERS = _words(
    """
    good great nice awesome amazing cool fun funny sweet lovely beautiful wonderful fantastic
    incredible happy sad glad excited proud busy tired hard easy big small little new old young
    long short high low best better worse worst different important special favorite favourite
    real true whole full free able bad right wrong every usually already soon later ago today
    tomorrow yesterday tonight together alone almost enough especially recently lately finally
    honestly seriously basically literally certainly clearly simply truly deeply super kinda
    sorta instead otherwise awesome huge tough crazy cute interesting exciting stressful
    challenging hard amazing incredible perfect wild fresh positive negative huge tiny lately
    late early
    """
)

# A team inside a company, named by its function ("Legal told us", "ask HR"): not an entity.
DEPARTMENTS = _words(
    "legal hr finance marketing sales procurement compliance payroll accounts ops operations "
    "facilities recruitment"
)

GENERIC_NOUNS = _words(
    """
    time times day days week weeks month months year years thing things stuff way ways bit part
    people person guy guys man woman men women idea ideas moment moments place places world life
    morning night evening afternoon weekend end start side kind sort type point reason fact
    question answer problem news chance experience feeling feelings hope luck sense look touch
    today tomorrow yesterday tonight lots plenty while minute minutes hour hours second seconds
    rest deal case number couple bunch piece pieces area matter job work home everything
    image images photo photos pic pics picture pictures difference impact support joy
    rewarding back front top bottom lot kinds
    """
)

MONTH_ABBREVIATIONS = _words("jan feb mar apr jun jul aug sep sept oct nov dec")
# Contractions typed without their apostrophe, none of them a word of its own ("jess hasnt
# stopped", "Hip or no hip Im not missing it": no "Jess Hasnt", no one called Im).
UNMARKED_CONTRACTIONS = _words(
    """
    hasnt isnt doesnt didnt wasnt werent arent havent hadnt wont cant dont shouldnt couldnt
    wouldnt mustnt neednt youre theyre youve theyve weve youll theyll itll thatll im ive whats
    thats theres heres hows whos wheres aint shes hes
    """
)

NAME_STOPWORDS = (
    FUNCTION_WORDS
    | INTERJECTIONS
    | CONTRACTIONS
    | UNMARKED_CONTRACTIONS
    | frozenset(MONTHS)
    | MONTH_ABBREVIATIONS
    | frozenset(WEEKDAYS)
    | frozenset(day + "s" for day in WEEKDAYS)  # "Tuesdays at 7pm"
    | TITLES
    | _words(
        "sir madam god gosh jesus today tonight name mon tue tues wed thu thur thurs fri sat sun"
    )
)

TOPIC_STOPWORDS = (
    FUNCTION_WORDS
    | INTERJECTIONS
    | CONTRACTIONS
    | COMMON_VERBS
    | COMMON_MODIFIERS
    | GENERIC_NOUNS
    | frozenset(MONTHS)
    | frozenset(WEEKDAYS)
)

# Set phrases whose last word is no topic ("of course!" is not the course).
SET_PHRASES = frozenset(
    {
        ("of", "course"),
        ("in", "fact"),
        ("at", "least"),
        ("for", "sure"),
        ("in", "general"),
        ("no", "worries"),
        ("for", "real"),
        ("no", "problem"),
        ("no", "idea"),
    }
)

# Words just before a capitalised name that say it is a person.
PERSON_CUES = TITLES | _words(
    """
    hey hi hello thanks dear uncle aunt auntie friend friends sister
    brother mom mum dad mother father son daughter wife husband boyfriend girlfriend partner
    cousin boss colleague coworker grandma grandpa grandmother grandfather neighbor neighbour
    coach teacher mentor named nephew niece fiance fiancee fiancé fiancée therapist
    """
)
# Words just after a capitalised name that say it is a person.
PERSON_AFTER = _words("said says told asked thinks thought wants wanted and")
# Words just before a capitalised name that say it is a place.
PLACE_CUES = _words(
    "in to from near visited visiting visit toward towards around round across "
    # in and to in the languages chats switch to: "mora em Pinheiros", "à Verdun" (Tagalog's
    # "sa" is as often a place to eat: "libre mo kami sa Manam")
    "em pra à"
)
# Words before "out of" / "outta" that say it is a base one flies or works from: "the charter
# outta Newman", "doing two and one out of Karratha" (not "kicked out of Harvard").
BASE_WORDS = _words(
    "charter charters flight flights fly flying flew flies working work works based operating "
    "runs running fifo one two three four 1 2 3 4"
)
# Words after which "to" and "from" point at a place ("went to Porto", "back from Leeds").
MOTION_WORDS = _words(
    "went go goes going moved move moving flew fly flying trip drove drive back came come "
    "travelled traveled travel train flight"
)
# Words before "far from" that say how far a place is: "Montpelier isn't far from Cotham", "so
# far from town" ("stay far from Tom" keeps away from a person).
NEARNESS_WORDS = _words("not isn't isnt so too very quite")
# Languages and nationalities: capitalised, often after "in", never places.
LANGUAGES = _words(
    """
    portuguese english spanish french german italian dutch chinese mandarin cantonese japanese
    korean arabic russian polish greek turkish hindi swedish norwegian danish finnish irish
    scottish welsh british american canadian australian brazilian mexican european african
    asian latin catalan basque ukrainian czech hungarian romanian
    gujarati tamil telugu kannada malayalam bengali punjabi marathi urdu yoruba igbo hausa
    swahili zulu xhosa afrikaans tagalog filipino indonesian malay vietnamese thai persian farsi
    hebrew nigerian indian pakistani kenyan ghanaian jamaican victorian georgian edwardian
    """
)

ORGANISATION_SUFFIXES = _words(
    """
    university college school academy institute hospital infirmary hospice clinic surgery center
    centre inc corp corporation company co ltd llc group club foundation association society
    agency studio studios bank church museum library cafe café restaurant bar gym team league
    council department ministry labs lab press records store shop market charity trust network
    ventures capital partners logistics freight solutions systems technologies media consulting
    holdings studios agency building vets vet pharmacy salon bakery brewery dental practice
    motors garage garages catering caterers primary grammar nursery buildings arms
    burger burgers grill kitchen diner bistro cantina taqueria pizzeria deli canteen tavern
    eatery brasserie trattoria steakhouse bakehouse roastery creamery patisserie
    energy health robotics pay software analytics office
    """
)
#: The first word of a place to eat named first in many languages: "Café Santiago",
#: "Trattoria da Enzo".
EATERY_HEADS = _words(
    "café cafe caffè caffe restaurant restaurante ristorante pizzeria taqueria "
    "trattoria brasserie bistro cantina"
)
#: Words ending a wild place's name that end people's names too ("the Boundary Waters", "the
#: Isle of Skye's Glen"; "Roger Waters", "Tiger Woods", "Tom Dale"): a place's only after a word
#: no one is called.
SURNAME_PLACE_SUFFIXES = _words("waters woods dale glen cove moor moors point")
#: The games that are held, not made ("the Commonwealth Games", "the Hunger Games").
HELD_GAMES = _words(
    "olympic olympics paralympic commonwealth highland braemar asian invictus world youth "
    "european pan summer winter special island african pacific x gay nordic hunger board video"
)
#: An occasion's word that opens its name before "of", "de" or "du": "Festival du Voyageur",
#: "Fête de la Musique", "Feria de Abril" ("Festival Republic" is a company).
EVENT_HEADS = _words("festival fête fete fiesta feria festa carnaval")
#: The first word of a body named first in other languages: "Hospital Santa Inés", "Livraria
#: Cativa", "Clínica Dental Sorriso".
BODY_HEADS = _words("hospital clínica clinica livraria librería libreria farmacia farmácia")
#: The word that opens a project's name, in the languages chats mix in: "Proyecto Colibrí".
PROJECT_HEADS = _words("project proyecto projeto projet projekt progetto proiect projekti")
#: "Transport for Wales", "Institute for Fiscal Studies": "for" joins a body's own word to what it
#: is for; after anything else ("Thanks Kate for Lisbon") it ends the name.
FOR_HEADS = _words(
    """
    transport institute department ministry centre center society trust campaign foundation
    commission alliance office council secretary minister partnership network
    """
)
# A body named "<head> of ...": "University of Galway", "Bank of Ireland", "Museum of London".
OF_HEADS = _words(
    """
    university college institute bank museum ministry department school academy church
    hospital library society council faculty
    """
)
PLACE_SUFFIXES = _words(
    """
    street st road rd avenue ave lane park lake river mountain mountains mount mt beach city town
    village island islands valley bay county state country coast hills hill falls canyon forest
    square bridge harbour harbor station airport yard boathouse stadium arena pier gardens
    district quarter depot marina plaza tunnel row ridge hotel hostel resort inn lodge homestay
    hall castle palace cathedral abbey manor ballroom
    layout nagar colony estate barrio
    peninsula gorge cliffs reservoir wharf quay fjord
    """
)
# Of them, the words of nature's places, whose own word is the place ("Garda" of Lake Garda)
NATURE_WORDS = _words(
    "lake loch mount mt river mountain mountains island islands isle valley bay hills hill falls "
    "canyon forest coast beach"
)
PLACE_PREFIXES = _words(
    "lake mount mt port fort san santa saint st north south east west new hotel isle "
    # streets and squares named first in other languages: "Rua de São Miguel", "Calle Mayor"
    "rua rue calle avenida praça praca piazza carrer "
    # a market named first: "Marché Jean-Talon", "Mercado de San Miguel"
    "marché marche mercado mercato"
)
KNOWN_PLACES = _words(
    """
    africa asia europe america australia antarctica canada mexico brazil argentina peru chile
    england scotland wales ireland britain uk usa france spain portugal italy germany austria
    switzerland netherlands belgium sweden norway denmark finland iceland poland greece turkey
    egypt morocco kenya nigeria india china japan korea thailand vietnam indonesia singapore
    philippines russia ukraine israel london paris berlin madrid rome lisbon porto amsterdam
    dublin edinburgh bristol manchester tokyo kyoto seoul beijing shanghai sydney melbourne
    toronto vancouver montreal chicago boston seattle denver miami atlanta houston dallas austin
    california texas florida hawaii alaska york brooklyn manhattan
    """
)
#: Widely known apps, platforms, devices and software: what one uses is a product, whatever a
#: bare capitalised name would default to ("the architect from Hinge", "a Switch game").
KNOWN_PRODUCTS = _words(
    """
    facebook instagram whatsapp messenger tiktok snapchat twitter youtube reddit linkedin
    pinterest tumblr discord telegram wechat netflix spotify hulu twitch soundcloud zoom skype
    slack facetime imessage gmail hinge tinder bumble grindr uber lyft deliveroo doordash
    grubhub airbnb venmo paypal duolingo strava peloton fitbit kindle iphone ipad macbook
    airpods playstation ps5 xbox switch chatgpt excel powerpoint figma canva photoshop
    wordpress shopify github jira trello asana grab gojek lazada tokopedia gcash paytm phonepe
    swiggy zomato foodpanda glovo rappi ifood yango m-pesa mpesa makemytrip carousell taobao
    alipay revolut monzo klarna trainline viber confluence notion teams outlook waze booking.com
    skyscanner spareroom gumtree depop vinted talabat careem jumia konga opay paystack
    flutterwave kakaotalk
    """
) | frozenset(
    {"google maps", "google docs", "apple music", "prime video", "uber eats", "nintendo switch"}
)
#: Widely known companies: shops, airlines, chains and the large technology firms.
KNOWN_ORGANISATIONS = _words(
    """
    google apple microsoft amazon samsung sony nintendo tesla kmart walmart costco ikea tesco
    sainsbury's asda aldi lidl waitrose morrisons primark zara uniqlo lululemon nike adidas
    sephora starbucks mcdonald's nando's greggs ryanair easyjet lufthansa emirates qantas klm
    accenture deloitte kpmg pwc mckinsey infosys wipro cognizant capgemini ibm oracle salesforce
    sap siemens bosch unilever nestle nestlé heineken airbus boeing medtronic atlassian xero
    shopee jollibee flipkart razorpay byju's reliance airtel vodafone vodacom safaricom ecobank
    kcb gtbank zenith takealot shoprite woolworths woolies eskom capitec absa nedbank nubank
    itaú bradesco petrobras embraer oxxo pemex telcel movistar allegro mbank zalando ocado argos
    currys sainsburys barclays hsbc natwest nationwide rabobank telstra optus jetstar bunnings
    westpac commbank fonterra enbridge wealthsimple loblaws scotiabank walgreens kroger chipotle
    verizon comcast nvidia fedex dhl westjet indigo singtel ocbc dbs grabpay alibaba tencent
    baidu bytedance
    huawei xiaomi lenovo hyundai toyota honda nissan volkswagen bmw audi porsche renault
    peugeot ferrari philips ericsson nokia maersk carlsberg lego novartis pfizer moderna
    astrazeneca gsk diageo allianz axa bbva starling lloyds rakuten softbank naver kakao
    coupang meituan uob maybank cimb petronas airasia telkomsel pldt bdo bpi metrobank mtn
    dangote andela sasol naspers multichoice dstv telkom hdfc icici kotak mahindra hcl zoho
    freshworks myntra nykaa bigbasket meesho afterpay telus cibc rbc magalu falabella cemex
    femsa banorte telmex avianca volaris aeromexico globant inditex mercadona carrefour auchan
    decathlon lvmh sncf ubs etihad vistara asos
    """
) | frozenset(
    {
        "british airways",
        "air france",
        "virgin atlantic",
        "whole foods",
        "trader joe's",
        "deutsche bahn",
        "aer lingus",
        "air new zealand",
        "air canada",
        "tim hortons",
        "john lewis",
        "marks & spencer",
        "pick n pay",
        "cebu pacific",
        "standard bank",
        "equity bank",
        "access bank",
        "mercado libre",
        "jb hi-fi",
        "home depot",
        "best buy",
        "goldman sachs",
        "morgan stanley",
        "wells fargo",
        "bank of america",
        "tata motors",
        "tata consultancy",
        "collins aerospace",
        "just eat",
        "wood group",
        "qatar airways",
        "turkish airlines",
        "air india",
        "kenya airways",
        "ethiopian airlines",
        "philippine airlines",
        "singapore airlines",
        "american airlines",
        "united airlines",
        "delta air lines",
        "first bank",
        "axis bank",
        "state bank of india",
        "deutsche bank",
        "bnp paribas",
        "jaguar land rover",
        "rolls-royce",
        "bae systems",
        "canadian tire",
        "el corte inglés",
        "grupo bimbo",
        "tech mahindra",
        "bain & company",
    }
)

KNOWN_BRANDS = KNOWN_PRODUCTS | KNOWN_ORGANISATIONS

#: Bodies everyone knows by their letters: never the initials of some other long name here
#: (kept apart from the brands, which casual chats also write in lower case).
KNOWN_ACRONYM_BODIES = _words(
    """
    nhs bbc itv rte hse cnn nbc abc fbi cia nasa nba nfl nhl mlb fifa uefa ibm mit ucla nyu
    lse ucl unicef nato opec imf
    """
)

#: Holidays and festivals: named occasions, not people ("home for Diwali", "Christmas with my
#: parents"), whatever a bare capitalised name would default to.
KNOWN_EVENTS = _words(
    """
    christmas easter diwali deepavali eid hanukkah chanukah thanksgiving halloween ramadan holi
    passover pongal onam navratri vesak kwanzaa hogmanay
    glastonbury coachella oktoberfest carnaval carnival lollapalooza tomorrowland sxsw eurovision
    wimbledon olympics songkran sinulog guelaguetza matariki eisteddfod sziget roskilde
    afropunk kadayawan pahiyas ati-atihan ramzan deepavali hajj lohri baisakhi vaisakhi
    gamescom
    """
) | frozenset(
    {
        "mardi gras",
        "hari raya",
        "heritage day",
        "notting hill carnival",
        "burning man",
        "edinburgh fringe",
        "web summit",
        "super bowl",
        "world cup",
        "electric picnic",
        "galway races",
        "primavera sound",
        "día de muertos",
        "dia de muertos",
        "la tomatina",
        "san fermín",
        "afro nation",
        "chale wote",
        "nyege nyege",
        "vivid sydney",
        "comrades marathon",
        "new year",
        "new year's eve",
        "lunar new year",
        "chinese new year",
        "christmas eve",
        "christmas day",
        "boxing day",
        "bonfire night",
        "st patrick's day",
        "valentine's day",
        "mother's day",
        "father's day",
        "eid al-fitr",
        "eid al-adha",
        "rosh hashanah",
        "yom kippur",
    }
)

# The relation vocabulary and its patterns are ``relation_rules``.

DOMAIN_KEYWORDS: dict[str, frozenset[str]] = {
    "health": _words(
        """
        health healthy doctor doctors hospital clinic surgery sick illness ill injury injured pain
        therapy therapist medication medicine meds pills supplement blood diet nutrition exercise
        workout gym fitness running marathon yoga stress anxiety depression mental dentist
        diagnosis symptoms recovery vaccine allergy iron cholesterol physio physiotherapy nurse
        checkup retest ferritin knee injury headache migraine
        """
    ),
    "work": _words(
        """
        work job jobs career boss manager colleague colleagues coworker coworkers office meeting
        meetings project projects deadline deadlines client clients promotion interview hired
        hiring resume company startup business team shift internship presentation workplace
        employer employee
        """
    ),
    "family": _words(
        """
        family mom mum mother dad father parents parent sister brother siblings son daughter kids
        kid children child baby wife husband grandma grandmother grandpa grandfather aunt uncle
        cousin niece nephew wedding married marriage anniversary pregnant
        """
    ),
    "travel": _words(
        """
        travel traveling travelling trip trips vacation holiday holidays flight flights airport
        hotel beach abroad passport visa tour tourist cruise backpacking journey destination
        sightseeing roadtrip
        """
    ),
    "hobbies": _words(
        """
        hobby hobbies painting paint drawing art pottery music guitar piano singing dance dancing
        photography camera reading books book novel writing poetry cooking baking recipe garden
        gardening knitting hiking camping fishing gaming games chess surfing skiing climbing
        cycling biking volunteering concert festival movie movies film films podcast
        """
    ),
    "finance": _words(
        """
        money budget savings invest investing investment stocks bank loan mortgage rent salary
        debt tax taxes bills expenses afford insurance pension retirement income spending
        """
    ),
    "education": _words(
        """
        school class classes course courses university college degree study studying student
        students teacher professor exam exams homework lecture graduate graduation thesis lesson
        lessons tutor scholarship semester campus
        """
    ),
    "pets": _words("dog dogs cat cats puppy puppies kitten kittens pet pets vet"),
    "home": _words(
        "house apartment flat moving neighborhood neighbourhood renovation furniture landlord"
    ),
    "relationships": _words(
        "friend friends friendship party dating boyfriend girlfriend partner relationship breakup"
    ),
}
_KEYWORD_DOMAINS: dict[str, tuple[str, ...]] = {}
for _domain, _keywords in DOMAIN_KEYWORDS.items():
    for _keyword in _keywords:
        _KEYWORD_DOMAINS[_keyword] = (*_KEYWORD_DOMAINS.get(_keyword, ()), _domain)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
MAX_INFERRED_DOMAINS = 3


def keyword_domains(word: str) -> tuple[str, ...]:
    """The domains a lower-case word is a keyword of (empty for most words)."""
    return _KEYWORD_DOMAINS.get(word, ())


def infer_domains(text: str) -> tuple[str, ...]:
    """Up to three domains whose keywords the text uses, most used first."""
    hits: Counter[str] = Counter()
    for match in _WORD.finditer(text):
        for domain in _KEYWORD_DOMAINS.get(match.group().casefold(), ()):
            hits[domain] += 1
    ranked = sorted(hits.items(), key=lambda item: (-item[1], item[0]))
    return tuple(domain for domain, _count in ranked[:MAX_INFERRED_DOMAINS])


# What a person's occasion is called after their name ("Meera's wedding", "Mum's 60th"), and
# the word that may follow it as part of the name ("farewell braai", "hen do").
OCCASIONS = frozenset(
    """
    wedding birthday bday funeral graduation farewell engagement christening baptism hen stag
    housewarming retirement leaving 18th 21st 30th 40th 50th 60th 65th 70th 75th 80th 90th
    100th debut quinceanera quinceañera
    """.split()  # noqa: SIM905
)
OCCASION_HEADS = frozenset("party braai do drinks dinner bash shower lunch".split())  # noqa: SIM905
# Occasions named only with their head word ("Kemi's leaving do"; "Tom's leaving" is leaving).
OCCASIONS_WITH_HEAD = frozenset({"leaving"})
BIRTHDAY_WORDS = frozenset({"birthday", "bday"})
# What belongs to an occasion, said after it: then the name is of that thing.
OCCASION_OBJECTS = frozenset(
    """
    card cards gift gifts present presents cake dress dresses suit ring rings photo photos pics
    pictures video videos planner planners home director parlour parlor plan plans fund album
    single year century invite invites invitation invitations outfit outfits shoes money budget
    song songs speech playlist list
    """.split()  # noqa: SIM905
)
# Between the two sides of a match: "Wales v England", "Chiefs vs Pirates".
VERSUS = frozenset({"v", "vs", "v.", "vs."})
# What a sentence about a match says ("watching Chiefs vs Pirates tonight"), and what one
# weighing two things up says ("Sydney vs Melbourne for living, which would you pick?").
MATCH_WORDS = re.compile(
    r"\b(?:match|game|final|semi|derby|fixture|tickets?|kick-?off|watch|watching|watched|score|"
    r"beat|won|lost|draw|playing|play|stadium|miss|missing)\b",
    re.IGNORECASE,
)
WEIGHING_UP = re.compile(r"\b(?:which|better|prefer|pick|choose|for\s+living)\b", re.I)
HOLIDAYS = frozenset(
    "christmas xmas easter diwali eid hanukkah halloween thanksgiving ramadan".split()  # noqa: SIM905
)
